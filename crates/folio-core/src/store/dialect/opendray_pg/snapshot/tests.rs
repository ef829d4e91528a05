use super::*;

fn node(xmin: u64, rel: &str, text: &str) -> Node {
    Node { version: Version { xmin, edges: 3, sources: u64::MAX }, rel: rel.into(), text: text.into() }
}

fn sample(root: &Path) -> Snapshot {
    let mut s = Snapshot::default();
    s.nodes.insert("svc-pg".into(), node(7, "entities/service/svc-pg.md", "---\nid: svc-pg\n---\nBody\n"));
    s.nodes.insert("ünïcode".into(), node(u64::MAX, "facts/_n_code-0123456789.md", "---\nid: ü\n---\n"));
    let sum = |rows, xor| TableSum { rows, xor };
    s.tables = Some(Tables { nodes: sum(2, -5), edges: sum(0, 0), sources: sum(1, i64::MIN) });
    write(root, &mut s).unwrap();
    s
}

fn index_of(root: &Path) -> Index {
    match index(root) {
        Found::Intact(i) => i,
        other => panic!("{other:?}"),
    }
}

fn whole(root: &Path) -> Snapshot {
    match read(root) {
        Found::Intact(s) => s,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_snapshot_reads_back_and_a_damaged_index_is_never_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let s = sample(root);
    assert_ne!(s.generation, 0);
    assert_eq!(generation(root), Some(s.generation));
    assert_eq!(whole(root), s);
    let bytes = std::fs::read(path(root)).unwrap();
    for cut in [0, 7, 8, 20, HEADER - 1, HEADER, bytes.len() - 1] {
        std::fs::write(path(root), &bytes[..cut]).unwrap();
        assert!(matches!(read(root), Found::Damaged(_)), "cut at {cut}");
    }
    // A flipped bit in the header, and one in the index.
    for at in [30, bytes.len() - 2] {
        let mut flipped = bytes.clone();
        flipped[at] ^= 1;
        std::fs::write(path(root), &flipped).unwrap();
        let Found::Damaged(why) = read(root) else { panic!("a flipped bit at {at} was trusted") };
        assert!(why.contains("checksum"), "{why}");
    }
    // The header alone checks with a damaged index: an unchanged open reads nothing else.
    let mut flipped = bytes.clone();
    flipped[bytes.len() - 2] ^= 1;
    std::fs::write(path(root), &flipped).unwrap();
    assert!(matches!(header(root), Found::Intact(_)));
    assert!(matches!(index(root), Found::Damaged(_)));
    std::fs::write(path(root), b"FOLIOSN1 the single file of earlier builds").unwrap();
    assert!(matches!(read(root), Found::Damaged(_)));
    std::fs::remove_file(path(root)).unwrap();
    assert!(matches!(read(root), Found::Missing));
}

#[test]
fn a_text_that_does_not_match_its_checksum_is_never_trusted() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    sample(root);
    let Found::Intact(i) = index(root) else { panic!() };
    let e = i.by_rel("entities/service/svc-pg.md").unwrap().clone();
    let mut texts = std::fs::read(texts_path(root)).unwrap();
    texts[e.at as usize + 5] ^= 0x20;
    std::fs::write(texts_path(root), &texts).unwrap();
    // The index still checks; the text read by its offset does not, nor the whole.
    let t = Texts::open(root, &i.header).unwrap();
    let why = t.text(&e).unwrap_err();
    assert!(why.contains("svc-pg") && why.contains("checksum"), "{why}");
    let Found::Damaged(why) = read(root) else { panic!("a damaged text was trusted") };
    assert!(why.contains("svc-pg"), "{why}");
    // Texts of another snapshot (another epoch) are not these.
    sample(root);
    let Found::Intact(new) = index(root) else { panic!() };
    std::fs::write(path(root), encode_index(&mut i.header.clone(), &i.entries, &[])).unwrap();
    assert!(matches!(read(root), Found::Damaged(_)));
    drop(new);
}

#[test]
fn a_scan_in_runs_keeps_the_texts_chosen_and_never_a_damaged_one() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut s = Snapshot::default();
    for k in 0..50 {
        let body = if k % 7 == 3 { "links to svc-pg" } else { "nothing" };
        let text = format!("---\nid: n{k}\n---\n{body} {}\n", "x".repeat(k * 3));
        s.nodes.insert(format!("n{k}"), node(k as u64, &format!("facts/n{k}.md"), &text));
    }
    write(root, &mut s).unwrap();
    // A later text for one node (appended: its old text is dead bytes between live ones).
    let new = node(99, "facts/n10.md", "---\nid: n10\n---\nnow svc-pg too\n");
    let d = Delta { nodes: (0, 0), ..Delta::default() };
    // And one node gone (a veto), one whose text no longer names it.
    let n52 = node(98, "facts/n52.md", "---\nid: n52\n---\nsvc-pg, a node added since\n");
    let n3 = node(97, "facts/n3.md", "---\nid: n3\n---\nnothing now\n");
    let changes = vec![
        Change::Put("n10".into(), new),
        Change::Remove("n17".into()),
        Change::Put("n52".into(), n52),
        Change::Put("n3".into(), n3),
    ];
    append(root, s.generation, changes, Sums::Moved(d)).unwrap().unwrap();
    let i = index_of(root);
    let bytes = Checked::new(std::fs::read(path(root)).unwrap()).unwrap();
    let lean = Lean::of(&bytes).unwrap();
    assert_eq!(lean.entries.len(), 50, "the tail's removal and addition applied");
    assert!(lean.entries.is_sorted_by_key(|e| e.at), "in the order of their texts");
    let want: Vec<&str> = vec!["n10", "n24", "n31", "n38", "n45", "n52"];
    // Runs of one text each, of a few, and the whole file at once: the same entries.
    for chunk in [1, 200, 1 << 30] {
        let kept = entries_where_in(root, &lean, chunk, |t| memchr::memmem::find(t, b"svc-pg").is_some()).unwrap();
        let mut ids: Vec<&str> = kept.iter().map(|e| e.id).collect();
        ids.sort();
        assert_eq!(ids, want, "runs of {chunk} bytes");
    }
    let e = i.by_rel("facts/n24.md").unwrap().clone();
    let mut texts = std::fs::read(texts_path(root)).unwrap();
    texts[e.at as usize + 3] ^= 0x20;
    std::fs::write(texts_path(root), &texts).unwrap();
    for chunk in [1, 200, 1 << 30] {
        let why = entries_where_in(root, &lean, chunk, |_| true).unwrap_err();
        assert!(why.contains("`n24`") && why.contains("checksum"), "{why}");
    }
}

#[test]
fn an_append_adds_texts_and_a_torn_one_leaves_the_last_index_whole() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let s = sample(root);
    let texts_before = std::fs::read(texts_path(root)).unwrap();
    let new = node(9, "entities/service/svc-pg.md", "---\nid: svc-pg\n---\nApproved\n");
    let v = Version { xmin: 11, edges: 0, sources: 0 };
    let changes = vec![Change::Put("svc-pg".into(), new.clone()), Change::Version("ünïcode".into(), v)];
    let d = Delta { nodes: (0, 6), ..Delta::default() };
    let (g, paths) = append(root, s.generation, changes, Sums::Moved(d)).unwrap().unwrap();
    assert_eq!(paths, ["entities/service/svc-pg.md"]);
    let after = whole(root);
    assert_eq!(after.generation, g);
    assert_eq!(after.nodes["svc-pg"], new);
    assert_eq!(after.nodes["ünïcode"].version, v);
    assert_eq!(after.tables.unwrap().nodes, TableSum { rows: 2, xor: -5 ^ 6 });
    // The texts were appended to, not rewritten.
    let texts = std::fs::read(texts_path(root)).unwrap();
    assert!(texts.starts_with(&texts_before) && texts.len() > texts_before.len());
    assert_eq!(changed_since(root, s.generation), Some(paths.clone()));
    assert_eq!(changed_since(root, g), Some(Vec::new()));
    assert_eq!(changed_since(root, 12345), None);
    // A torn append (texts added, no new index): the index read is the last one, whole;
    // the next append counts the torn bytes dead and names none of them.
    let mut f = File::options().append(true).open(texts_path(root)).unwrap();
    f.write_all(b"---\nid: torn").unwrap();
    assert_eq!(whole(root), after);
    let by_path = |rel: &str| {
        let bytes = Checked::new(std::fs::read(path(root)).unwrap()).unwrap();
        lookup_rel(&bytes.parts(), rel).unwrap()
    };
    let rel = "facts/_n_code-0123456789.md";
    assert_eq!(by_path(rel).map(|e| e.version), Some(v), "a version in the tail");
    let e = by_path("entities/service/svc-pg.md").unwrap();
    let t = Texts::open(root, &index_of(root).header).unwrap();
    assert_eq!(t.text(&e).unwrap(), new.text, "a put in the tail");
    let changes = vec![Change::Remove("ünïcode".into())];
    let (g2, _) = append(root, g, changes, Sums::Are(Tables::default(), 0)).unwrap().unwrap();
    assert_eq!(by_path(rel), None, "a removal in the tail");
    let last = whole(root);
    assert_eq!(last.nodes.len(), 1);
    assert_eq!(last.tables, Some(Tables::default()));
    assert_eq!(changed_since(root, s.generation).unwrap().len(), 2);
    // A base another writer moved past: the sums are not known any more.
    let changes = vec![Change::Version("svc-pg".into(), v)];
    append(root, g, changes, Sums::Are(Tables::default(), 0)).unwrap().unwrap();
    assert_eq!(whole(root).tables, None);
    assert_ne!(g2, g);
}

#[test]
fn compaction_keeps_every_nodes_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let mut s = Snapshot::default();
    for n in 0..300 {
        let text = format!("---\nid: n{n}\n---\n{}\n", "x".repeat(4000 + n));
        s.nodes.insert(format!("n{n}"), node(n as u64, &format!("facts/n{n}.md"), &text));
    }
    write(root, &mut s).unwrap();
    let size = std::fs::metadata(texts_path(root)).unwrap().len();
    let mut expected = whole(root).nodes;
    // Rewrite most nodes, a few at a time: the dead bytes pass half and it is compacted.
    let mut compacted = false;
    for round in 0..4 {
        let base = generation(root).unwrap();
        let changes: Vec<Change> = (0..100)
            .map(|k| {
                let id = format!("n{}", (round * 100 + k) % 300);
                let text = format!("---\nid: {id}\n---\nround {round} {}\n", "y".repeat(3000));
                let n = node(round as u64, &format!("facts/{id}.md"), &text);
                expected.insert(id.clone(), n.clone());
                Change::Put(id, n)
            })
            .collect();
        append(root, base, changes, Sums::Are(Tables::default(), 0)).unwrap().unwrap();
        let now = std::fs::metadata(texts_path(root)).unwrap().len();
        compacted |= now < size;
        assert_eq!(whole(root).nodes, expected, "round {round}");
    }
    assert!(compacted, "the texts were never compacted");
    let Found::Intact(i) = index(root) else { panic!() };
    assert!(i.header.dead <= i.header.texts_end / 2);
}

#[test]
fn its_files_are_the_renderings_by_path() {
    let mut nodes = Nodes::default();
    nodes.insert("b".into(), node(1, "facts/b.md", "B"));
    nodes.insert("a".into(), node(2, "entities/host/a.md", "A"));
    let f = files(nodes);
    assert_eq!(f.keys().collect::<Vec<_>>(), ["entities/host/a.md", "facts/b.md"]);
    assert_eq!(f["facts/b.md"], "B");
}
