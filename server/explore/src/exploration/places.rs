//! Where runtime positions are in the project: the agent names classes by binary name
//! (`pkg.Pool$Worker`) and lines; reports name project files (`src/main/java/pkg/Pool.java`)
//! relative to the work tree. One map, taken from the analysis host when the request is
//! made, so that an exploration on a worker thread places its results without the host.

use std::collections::HashMap;

use racelens_analysis::host::Host;

use crate::jvm::protocol::{Execution, Outcome, Site};

/// Top-level class binary name -> project file.
#[derive(Clone, Debug, Default)]
pub struct Places {
    files: HashMap<String, String>,
}

impl Places {
    /// Every top-level class of the host's project, with its file.
    pub fn of(host: &Host) -> Places {
        let mut files = HashMap::new();
        for (_, e) in host.index().entries() {
            for c in e.facts.classes.iter().filter(|c| c.outer.is_none()) {
                files.insert(c.binary_name.clone(), e.path.clone());
            }
        }
        Places { files }
    }

    /// The map itself (class -> file), for the change model's site matching.
    pub fn files(&self) -> &HashMap<String, String> {
        &self.files
    }

    /// The project file of a class (`pkg.Pool$Worker` is in `.../pkg/Pool.java`); `None`
    /// outside the project.
    pub fn file_of(&self, class: &str) -> Option<String> {
        self.files.get(class.split('$').next().unwrap_or(class)).cloned()
    }

    /// The project file (if the class is the project's) and line of a site.
    pub fn place(&self, site: Option<&Site>) -> (Option<String>, Option<u32>) {
        match site {
            Some(s) => (self.file_of(&s.class), Some(s.line)),
            None => (None, None),
        }
    }

    /// The project file and line of the failure's first frame that is in the project.
    pub fn failure_site(&self, exec: &Execution) -> Option<(String, u32)> {
        let Outcome::Fail(f) = &exec.outcome else { return None };
        f.frames.iter().find_map(|fr| Some((self.file_of(&fr.class)?, fr.line)))
    }

    /// [`Places::failure_site`] as a report's `file` and `line` (null when unknown).
    pub fn failure_place(&self, exec: &Execution) -> (Option<String>, Option<u32>) {
        self.failure_site(exec).map_or((None, None), |(file, line)| (Some(file), Some(line)))
    }
}
