//! The papers' own examples, on real git repositories: CAPP's Mina change (section 2)
//! and SimRT's HashMap (Figure 1, sections 3.2 to 3.4).

mod support;

use support::*;

#[test]
fn capp_mina_is_empty_then_poll_impacts_the_queue_head() {
    let repo = fixture_repo("mina-flush");
    let (host, impact) = analyze(repo.path());
    let icps = icps(&impact);
    println!("{}", icps.join("\n"));
    // Step 2: the changed lines with their class and method.
    assert!(icps.iter().any(|i| i.starts_with("<org.example.codec.ProtocolCodecFilter, filterWrite, 26, _>")), "{icps:#?}");
    // Step 4: isEmpty() and poll() on a ConcurrentLinkedQueue read and write its head (from
    // the JDK's sources, as in the paper).
    assert!(icps.iter().any(|i| i == "<java.util.concurrent.ConcurrentLinkedQueue, _, _, head> callee-effect"), "{icps:#?}");
    let w = warnings(&host, &impact);
    println!("{}", w.join("\n"));
    assert!(w.iter().any(|w| w.contains("RL004") && w.contains("isEmpty()") && w.contains("poll()")), "{w:#?}");
}

#[test]
fn simrt_hashmap_pairs_are_the_papers() {
    let repo = fixture_repo("simrt-hashmap");
    let (host, impact) = analyze(repo.path());
    let pairs = pairs(&host, &impact);
    println!("{}", pairs.join("\n"));
    let data: Vec<&String> = pairs.iter().filter(|p| p.starts_with("RW") || p.starts_with("WW")).collect();
    println!("{data:#?}");
}
