//! The papers' own examples, on real git repositories: CAPP's Mina change (section 2)
//! and SimRT's HashMap (Figure 1, sections 3.2 to 3.4).

use racelens_test_support as support;

use support::*;

#[test]
fn capp_mina_is_empty_then_poll_impacts_the_queue_head() {
    let repo = fixture_repo("mina-flush");
    let (host, impact) = analyze(repo.path());
    let icps = icps(&impact);
    println!("{}", icps.join("\n"));
    // Step 2: the changed lines with their class and method.
    assert!(
        icps.iter().any(|i| i.starts_with("<org.example.codec.ProtocolCodecFilter, filterWrite, 26, _>")),
        "{icps:#?}"
    );
    // Step 4: isEmpty() and poll() on a ConcurrentLinkedQueue read and write its head (from
    // the JDK's sources, as in the paper).
    assert!(
        icps.iter().any(|i| i == "<java.util.concurrent.ConcurrentLinkedQueue, _, _, head> callee-effect"),
        "{icps:#?}"
    );
    let w = warnings(&host, &impact);
    println!("{}", w.join("\n"));
    assert!(w.iter().any(|w| w.contains("RL004") && w.contains("isEmpty()") && w.contains("poll()")), "{w:#?}");
}

#[test]
fn simrt_hashmap_shared_variables_and_pairs_are_the_papers() {
    let repo = fixture_repo("simrt-hashmap");
    let (host, impact) = analyze(repo.path());

    // Section 3.2: the shared variables of containsValue(), containsNull() and clear(),
    // as SV1..SV8 of the paper (`tab[i]` is an element of `table`'s array).
    let index = host.index();
    let sharing = racelens_analysis::impact::Sharing::compute(index);
    let impacted: std::collections::BTreeSet<(String, u32)> = impact
        .pairs
        .iter()
        .flat_map(|p| [&p.a, &p.b])
        .filter(|e| e.impacted)
        .map(|e| (e.method.clone(), e.span.line))
        .collect();
    let id = index.file_id("src/main/java/simrt/HM.java").unwrap();
    let entry = index.entry(id).unwrap();
    let mut svs: Vec<String> = entry
        .resolved
        .sites
        .iter()
        .filter(|s| sharing.is_shared(index, id, s))
        .map(|s| {
            let method = entry.facts.method_display(entry.facts.units[s.unit as usize].method);
            format!("{method} {} {:?} line {}", s.field.display_name(), s.kind, s.span.line)
        })
        .collect();
    svs.dedup();
    expect_test::expect![[r#"
        [
            "HM.containsValue table Read line 27",
            "HM.containsNull table Read line 41",
            "HM.containsNull table[] Read line 43",
            "HM.containsNull next Read line 43",
            "HM.clear table Read line 51",
            "HM.clear table[] Write line 53",
            "HM.clear modCount Read line 55",
            "HM.clear modCount Write line 55",
        ]
    "#]]
    .assert_debug_eq(&svs);

    // Section 3.3: impacted are SV2, SV3, SV4 (the new containsNull()) and SV7, SV8 (the
    // new modCount++); not SV1, SV5, SV6. Section 3.4: of these only SV3, SV7 and SV8 pair.
    let pairs = pairs(&host, &impact);
    expect_test::expect![[r#"
        [
            "RW HM.modCount: read HM.java:55 HM.clear []* <-> write HM.java:55 HM.clear []*",
            "RW HM.table[]: read HM.java:43 HM.containsNull []* <-> write HM.java:53 HM.clear [this]",
            "WW HM.modCount: write HM.java:55 HM.clear []* <-> write HM.java:55 HM.clear []*",
        ]
    "#]]
    .assert_debug_eq(&pairs);
    assert!(impacted.contains(&("HM.containsNull".to_string(), 43)));
    assert!(!impacted.contains(&("HM.clear".to_string(), 53)));
}
