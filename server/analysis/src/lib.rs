//! racelens analysis: from a Java work tree and its git base to the concurrency
//! consequences of the change.
//!
//! Layers, bottom up: [`java`] reads one file's syntax into facts; [`diff`] finds what
//! changed in a file; [`index`] joins the files of a project and resolves names;
//! [`impact`] computes impacted code points (CAPP section 3.1), shared variables and
//! impacted pairs (SimRT sections 3.2 to 3.4) and the warnings; [`select`] finds the tests
//! and what they reach ([`junit`] holds JUnit's rules for which methods are tests), and [`rank`] selects and ranks them for the change (SimRT sections
//! 3.5 and 3.6); [`host`] owns all of it for a work tree (the CLI and the language server
//! drive the same host); [`report`] is the typed JSON of `racelens check` (that of
//! `racelens select` is [`rank::Selection`]); [`index_cache`] keeps each file's facts across
//! restarts (in the work tree's [`cache_dir`]); [`cancel`] lets newer edits stop long work.
//! Nothing here knows about LSP or JSON-RPC.

pub mod cache_dir;
pub mod cancel;
pub mod config;
pub mod coverage;
pub mod diff;
pub mod git;
pub mod host;
pub mod impact;
pub mod index;
pub mod index_cache;
pub mod java;
pub mod junit;
pub mod junit_parallel;
pub mod rank;
pub mod report;
pub mod sarif;
pub mod select;
pub mod text;
pub mod workspace;
