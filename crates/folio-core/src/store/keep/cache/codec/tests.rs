use super::*;
use crate::store::model::entity::{Link, LinkSyntax, rule};

fn header() -> Header {
    Header {
        format: FORMAT,
        build: "test".into(),
        dialect: "vault".into(),
        root: "/s".into(),
        read_since_ns: 1,
        files_token: Some(7),
        entities: 0,
        chunks: 0,
    }
}

fn entities(n: usize) -> Vec<Arc<Entity>> {
    (0..n)
        .map(|i| Entity {
            id: format!("e{i}"),
            path: format!("e{i}.md"),
            title: format!("Entity {i}"),
            links: vec![{
                let mut l = Link::new(LinkSyntax::Wiki, "e0", (i % 2 == 1).then_some("first"), 3..9, 2, 1);
                l.resolution = Resolution::Entity(0);
                l
            }],
            problems: vec![
                Problem::new(rule::CONTROL_CHARS, "esc", 1, 2),
                Problem::new(rule::LEGACY_TRIGGER, "t", 3, 1).at_bytes(Some(20..27)),
            ],
            mtime_ns: -5,
            ..Entity::default()
        })
        .map(Arc::new)
        .collect()
}

#[test]
fn round_trip_over_several_chunks() {
    let es = entities(CHUNK * 2 + 3);
    let other = vec![
        (crate::store::dialect::okf::spec::CATALOG.to_string(), FileRole::Catalog),
        ("img.png".to_string(), FileRole::Other),
    ];
    let warn = vec![StoreWarning { code: "unreadable".into(), message: "no".into(), path: Some("x".into()) }];
    let bytes = encode(header(), &es, &other, &warn, 9, None, None, None).unwrap().into_bytes().unwrap();
    let s = decode(&bytes).unwrap();
    assert_eq!(s.header.entities, es.len() as u64);
    assert_eq!(s.header.chunks, 3);
    assert_eq!(s.entities.len(), es.len());
    assert_eq!(s.entities[4098].title, es[4098].title);
    assert_eq!(s.entities[7].links, es[7].links);
    assert_eq!(s.entities[7].problems, es[7].problems);
    assert_eq!(s.entities[7].mtime_ns, -5);
    assert_eq!(s.other_files, other);
    assert_eq!(s.walk_warnings[0].path.as_deref(), Some("x"));
    assert_eq!(s.parse_inputs, 9);
    // Read from the file a chunk at a time: the same snapshot; a cut or a flip is an error.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.folio-cache");
    std::fs::write(&path, &bytes).unwrap();
    let f = decode_file(&std::fs::File::open(&path).unwrap()).unwrap();
    assert_eq!(f.entities.len(), es.len());
    assert_eq!(f.entities[4098].title, es[4098].title);
    assert_eq!(f.other_files, other);
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    assert!(decode_file(&std::fs::File::open(&path).unwrap()).unwrap_err().contains("truncated"));
    let mut flipped = bytes.clone();
    let at = flipped.len() - 10;
    flipped[at] ^= 1;
    std::fs::write(&path, &flipped).unwrap();
    assert!(decode_file(&std::fs::File::open(&path).unwrap()).unwrap_err().contains("checksum"));
}

#[test]
fn every_truncation_and_a_flipped_byte_are_errors() {
    let bytes = encode(header(), &entities(40), &[], &[], 0, None, None, None).unwrap().into_bytes().unwrap();
    for cut in (0..bytes.len()).step_by(7) {
        assert!(decode(&bytes[..cut]).is_err(), "truncated at {cut} of {}", bytes.len());
    }
    for at in [3, 20, bytes.len() / 2, bytes.len() - 1] {
        let mut b = bytes.clone();
        b[at] ^= 0x40;
        assert!(decode(&b).is_err(), "flipped byte {at}");
    }
}

/// The file stamps: read back from the front alone, in the entities' order, and the lean
/// entities after them; a cut or a flipped byte in that section is an error for the front
/// and for the whole decode alike.
#[test]
fn the_file_stamps_round_trip_and_a_damaged_section_is_an_error() {
    let mut es = entities(CHUNK + 5);
    for (i, e) in es.iter_mut().enumerate() {
        let e = Arc::make_mut(e);
        e.path = format!("notes/{i:05}.md");
        (e.file_size, e.mtime_ns) = (i as u64 * 7, 1_700_000_000_000_000_000 + i as i64);
    }
    let bytes = encode(header(), &es, &[("img.png".into(), FileRole::Other)], &[], 0, None, None, None)
        .unwrap()
        .into_bytes()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.folio-cache");
    std::fs::write(&path, &bytes).unwrap();
    let file = std::fs::File::open(&path).unwrap();
    let front = decode_file_front(&file, Stamps::Decoded).unwrap();
    let want: Vec<Stamp> =
        es.iter().map(|e| Stamp { path: e.path.clone(), size: e.file_size, mtime_ns: e.mtime_ns }).collect();
    assert_eq!(front.stamps, want);
    assert_eq!(front.other_files, vec![("img.png".to_string(), FileRole::Other)]);
    let go_on = std::sync::atomic::AtomicBool::new(false);
    let lean = decode_file_lean_entities(&file, &front, &go_on).unwrap();
    assert_eq!(lean.len(), es.len());
    assert!(lean.iter().zip(&es).all(|(l, e)| l.path == e.path && l.links.is_empty() && l.title == e.title));
    // Told to stop: no entity is given, the decode says why.
    let stop = std::sync::atomic::AtomicBool::new(true);
    assert!(decode_file_lean_entities(&file, &front, &stop).unwrap_err().contains("no longer wanted"));
    // The stamps are the third section: its body starts after the magic, two sections and
    // its own 12-byte header.
    let all = sections(bytes.as_slice()).unwrap();
    let (at, len, _) = all[2];
    let (at, len) = (at as usize, len as usize);
    for flip in [at, at + len / 2, at + len - 1] {
        let mut b = bytes.clone();
        b[flip] ^= 0x10;
        std::fs::write(&path, &b).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        let why = decode_file_front(&file, Stamps::Decoded).unwrap_err();
        assert!(why.contains("checksum mismatch in the file stamps"), "{why}");
        assert!(decode_file(&file).unwrap_err().contains("file stamps"));
        assert!(decode(&b).is_err());
    }
    for cut in [at - 5, at + len / 2, at + len - 1] {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        assert!(decode_file_front(&file, Stamps::Decoded).unwrap_err().contains("truncated"), "cut at {cut}");
        assert!(decode_file(&file).is_err());
    }
    // Stamps for fewer entities than the header says (a section from another snapshot).
    let other = encode(header(), &es[..3], &[], &[], 0, None, None, None).unwrap().into_bytes().unwrap();
    let o = sections(other.as_slice()).unwrap()[2];
    let mut spliced = bytes[..at - 12].to_vec();
    spliced.extend_from_slice(&other[o.0 as usize - 12..(o.0 + o.1) as usize]);
    spliced.extend_from_slice(&bytes[at + len..]);
    std::fs::write(&path, &spliced).unwrap();
    let why = decode_file_front(&std::fs::File::open(&path).unwrap(), Stamps::Decoded).unwrap_err();
    assert!(why.contains("file stamps where the header says"), "{why}");
}

#[test]
fn an_index_out_of_range_is_refused() {
    let mut es = entities(3);
    Arc::make_mut(&mut es[1]).links[0].resolution = Resolution::Entity(3);
    let bytes = encode(header(), &es, &[], &[], 0, None, None, None).unwrap().into_bytes().unwrap();
    assert!(decode(&bytes).unwrap_err().contains("out of range"));
}

#[test]
fn roles_round_trip() {
    for r in [FileRole::Entity, FileRole::Catalog, FileRole::Log, FileRole::Other] {
        assert_eq!(role_from(role_code(r)), Some(r));
    }
}
