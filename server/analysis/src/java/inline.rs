//! Which lambdas and anonymous-class methods run synchronously where they are written, so
//! that they hold the locks held there (issue 21, item 0: `orders.forEach(o -> …)` inside
//! `lock.lock() … unlock()` reads under the lock).
//!
//! A lambda runs inline when it is an argument of a call the JDK specifies as running its
//! function before it returns (`Iterable.forEach`, `Map.compute*`, `Collection.removeIf`,
//! `List.sort`, the atomics' `updateAndGet`, `Optional.ifPresent`, a stream's operations,
//! which run when the statement's terminal operation does, JUnit's and AssertJ's
//! `assertThrows`-like assertions), or when it initialises a local
//! that is only ever called (`Runnable r = () -> …; r.run();`) at exactly one place. Anything
//! else (handed to an executor, a thread, a listener registry, a field) runs later, on a
//! thread and under locks nobody knows here.

use super::facts::{CallKind, Expr, FileFacts, UnitIdx};

/// Methods that call their function argument before they return.
const RUNS_ARGUMENT_NOW: &[&str] = &[
    // Iterable, Iterator, Map, Collection, List
    "forEach",
    "forEachRemaining",
    "removeIf",
    "replaceAll",
    "compute",
    "computeIfAbsent",
    "computeIfPresent",
    "merge",
    "sort",
    // atomics
    "updateAndGet",
    "getAndUpdate",
    "accumulateAndGet",
    "getAndAccumulate",
    // Optional
    "ifPresent",
    "ifPresentOrElse",
    "orElseGet",
    "orElseThrow",
    // streams: intermediate operations run inside the terminal one, in the same statement
    "map",
    "filter",
    "flatMap",
    "mapToInt",
    "mapToLong",
    "mapToDouble",
    "mapToObj",
    "peek",
    "takeWhile",
    "dropWhile",
    "forEachOrdered",
    "reduce",
    "collect",
    "anyMatch",
    "allMatch",
    "noneMatch",
    // test assertions that run their executable on the caller's thread (JUnit 5's
    // `assertTimeoutPreemptively` runs it on another thread, and is not here)
    "assertThrows",
    "assertThrowsExactly",
    "assertDoesNotThrow",
    "assertAll",
    "assertTimeout",
    "assumingThat",
    "assertThatThrownBy",
    "assertThatCode",
    "isThrownBy",
    "catchThrowable",
    "catchThrowableOfType",
    "catchException",
];

/// Functional-interface methods: calling one on a local runs the lambda it holds.
const FUNCTION_CALLS: &[&str] =
    &["run", "call", "get", "accept", "apply", "test", "getAsInt", "getAsLong", "getAsDouble", "getAsBoolean"];

/// Sets [`super::facts::Unit::inline_at`] for every unit that runs inline.
pub(super) fn mark_inline_units(facts: &mut FileFacts) {
    let mut marks: Vec<(UnitIdx, u32)> = Vec::new();
    for call in
        facts.calls.iter().filter(|c| c.kind == CallKind::Method && RUNS_ARGUMENT_NOW.contains(&c.name.as_str()))
    {
        for arg in &call.args {
            if let Expr::Lambda(u) = arg {
                marks.push((*u, call.full.start));
            }
        }
        // Methods of an anonymous class instantiated as an argument of the call.
        for (ci, class) in facts.classes.iter().enumerate() {
            if class.simple_name.is_empty()
                && call.full.contains(class.body.start)
                && facts.unit_at(class.span.start) == Some(call.unit)
            {
                for (u, unit) in facts.units.iter().enumerate() {
                    if !unit.is_lambda && facts.methods[unit.method as usize].class as usize == ci {
                        marks.push((u as UnitIdx, call.full.start));
                    }
                }
            }
        }
    }
    for (l, local) in facts.locals.iter().enumerate() {
        let (Some(Expr::Lambda(u)), false) = (&local.init, local.reassigned) else { continue };
        let is_this = |e: &Expr| matches!(e, Expr::Local(x) if *x as usize == l);
        // Read once, by the call: stored, returned or passed on, it may run anywhere.
        let reads = facts.local_uses.iter().filter(|x| x.local as usize == l && !x.write).count();
        let invoked: Vec<_> = facts
            .calls
            .iter()
            .filter(|c| c.receiver.as_ref().is_some_and(is_this) && FUNCTION_CALLS.contains(&c.name.as_str()))
            .collect();
        if let ([call], 1) = (invoked.as_slice(), reads) {
            if facts.units[*u as usize].parent == Some(call.unit) {
                marks.push((*u, call.full.start));
            }
        }
    }
    for (u, at) in marks {
        let unit = &facts.units[u as usize];
        // Only where the function runs in the unit that wrote it (the parent).
        if unit.parent.is_some_and(|p| facts.units[p as usize].span.contains(at)) {
            facts.units[u as usize].inline_at = Some(at);
        }
    }
}
