//! Figures the docs repeat agree with each other (issue 60): the
//! ten-block example files' headers and docs/network.md give the same
//! peak memory, BENCHMARKS.md's measured one.

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");

/// Every `N.N GiB` or `N.N-N.N GiB` of `text`, dashes as `-`.
fn gib(text: &str) -> Vec<String> {
    let text = text.replace('–', "-").replace('\n', " ");
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(2)
        .filter(|w| w[1].starts_with("GiB") && w[0].starts_with(|c: char| c.is_ascii_digit()))
        .map(|w| w[0].to_owned())
        .collect()
}

#[test]
fn the_ten_block_examples_and_the_docs_give_the_same_peak_memory() {
    let read = |p: &str| std::fs::read_to_string(format!("{ROOT}/{p}")).unwrap();
    let docs = read("docs/network.md");
    let at = docs.find("the two ten-block example").unwrap();
    let paragraph = &docs[at..at + docs[at..].find("layout:").unwrap()];
    let in_docs = gib(paragraph);
    let anywhere = gib(&docs);
    for (file, peaks) in [
        ("ten-blocks-classic.yaml", 1),
        // Its own, the classic run's and `batch: moment`'s.
        ("ten-blocks-parallel.yaml", 3),
    ] {
        let text = read(&format!("crates/simulation/examples/{file}"));
        let header: String = text.lines().take_while(|l| l.starts_with('#')).collect();
        let in_header: Vec<String> = gib(&header).into_iter().filter(|g| g != "23.5").collect();
        assert_eq!(in_header.len(), peaks, "{file}: {in_header:?}");
        for g in &in_header {
            assert!(
                anywhere.contains(g),
                "{file} says {g} GiB, docs/network.md {in_docs:?}"
            );
        }
    }
    // BENCHMARKS.md's measured peaks: classic 7 921 and 8 046 MiB,
    // parallel 7 984 and 8 271 MiB.
    assert_eq!(in_docs, ["7.7-7.9", "7.8-8.1"], "{paragraph}");
}
