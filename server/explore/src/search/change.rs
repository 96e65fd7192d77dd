//! The change, as the exploration sees it: the analysis' impacted code points and
//! impacted pairs, turned into what runtime positions (agent sites) are matched against.

use std::collections::HashMap;

use racelens_analysis::host::Host;
use racelens_analysis::impact::{EndAccess, IcpReason, Impact, PairKind};
use racelens_analysis::index::Origin;

use crate::search::capp::{IcpIndex, IcpTuple, SiteMap};

/// One end of an impacted pair, where it is in the code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairEndPlace {
    pub file: String,
    pub line: u32,
    pub access: EndAccess,
}

/// An impacted shared-variable pair as an exploration target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairTarget {
    pub kind: PairKind,
    /// Declaring class and name of the variable (the lock, for MM and WN pairs).
    pub field: (String, String),
    pub ends: [PairEndPlace; 2],
    pub protected: bool,
}

#[derive(Clone)]
pub struct ChangeModel {
    pub icps: IcpIndex,
    pub files: HashMap<String, String>,
    pub pairs: Vec<PairTarget>,
    /// Callees (method names) whose read/write sets hold impacted fields: a call to one
    /// counts as touching an impacted field (the JDK is not instrumented).
    pub effect_callees: Vec<String>,
    /// Impacted lines as agent places (`pkg.Pool:42`): where change-aware PCT may change
    /// priorities.
    pub pct_sites: Vec<String>,
}

impl ChangeModel {
    /// Whether the change impacts nothing the search could steer by (an unchanged tree).
    pub fn is_empty(&self) -> bool {
        self.icps.is_empty() && self.pairs.is_empty() && self.pct_sites.is_empty()
    }

    pub fn site_map(&self) -> SiteMap {
        SiteMap { files: self.files.clone() }
    }

    /// The model with the dynamic impact's code points ([`crate::impact::icps`]) instead of
    /// the analysis' (`keep_static` false: `--icps dynamic`) or besides them (`both`).
    /// Impacted pairs stay the analysis'.
    pub fn with_dynamic(mut self, dynamic: Vec<IcpTuple>, keep_static: bool) -> ChangeModel {
        let lines: Vec<String> = dynamic
            .iter()
            .filter_map(|(class, _, line, _, _)| Some(format!("{}:{}", class.as_ref()?, line.as_ref()?)))
            .collect();
        if keep_static {
            self.icps.extend(dynamic);
            self.pct_sites.extend(lines);
        } else {
            self.icps = IcpIndex::new(dynamic);
            self.effect_callees.clear();
            self.pct_sites = lines;
        }
        self.pct_sites.sort();
        self.pct_sites.dedup();
        self
    }
}

/// Builds the change model from the host's current impact.
pub fn model(host: &Host, impact: &Impact) -> ChangeModel {
    let index = host.index();
    let mut files = HashMap::new();
    for (_, e) in index.entries() {
        for c in e.facts.classes.iter().filter(|c| c.outer.is_none()) {
            files.insert(c.binary_name.clone(), e.path.clone());
        }
    }
    let mut effect_callees = Vec::new();
    let icps = IcpIndex::new(impact.icps.iter().map(|i| {
        let file = match i.origin {
            Some(Origin::Project(f)) => Some(host.path_of(f).to_string()),
            _ => None,
        };
        let method_range = match (i.origin, i.line, &i.method) {
            (Some(Origin::Project(f)), Some(line), Some(_)) => index.entry(f).and_then(|e| {
                let m = e.facts.method_at_line(line)?;
                let span = e.facts.methods[m as usize].span;
                Some((e.path.clone(), span.line, span.end_line))
            }),
            _ => None,
        };
        if let IcpReason::CalleeEffect { callee } = &i.reason {
            let name = callee.trim_end_matches("()").rsplit('.').next().unwrap_or("").to_string();
            if !name.is_empty() && !effect_callees.contains(&name) {
                effect_callees.push(name);
            }
        }
        (i.class.clone(), if i.line.is_some() { file } else { None }, i.line, i.field.clone(), method_range)
    }));
    let pairs = impact
        .pairs
        .iter()
        .map(|p| {
            let place = |e: &racelens_analysis::impact::PairEnd| PairEndPlace {
                file: host.path_of(e.file).to_string(),
                line: e.span.line,
                access: e.access,
            };
            PairTarget {
                kind: p.kind,
                field: (p.field.class.to_string(), p.field.name.to_string()),
                ends: [place(&p.a), place(&p.b)],
                protected: p.protected,
            }
        })
        .collect();
    let mut pct_sites: Vec<String> =
        impact.icps.iter().filter_map(|i| Some(format!("{}:{}", i.class.as_ref()?, i.line?))).collect();
    pct_sites.sort();
    pct_sites.dedup();
    ChangeModel { icps, files, pairs, effect_callees, pct_sites }
}
