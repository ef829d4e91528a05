//! The write gate from the outside (issue 16): every write command of the real binary, given
//! random ids, titles, merge targets and move destinations over random folder layouts (vaults,
//! OKF bundles, bare evolve folders, evolve projects, a store nested in another, symlinked
//! folders leading out, `..` segments, absolute paths), changes no byte outside the store —
//! nothing beside the root, in the enclosing store or behind a symlink. Folio's own state
//! and the places the format itself keeps beside the root (evolve's `.evolve/audit.log` and
//! `.evolve/vetoed/`) are the only exceptions. Each command is followed by an undo, which must
//! keep the same promise, and no input may crash the binary.
use crate::support;
use support::*;

use std::path::{Path, PathBuf};

use proptest::prelude::*;

/// Cases per command: enough variety to reach every layout and escape shape, small enough
/// for CI (each case runs the binary two or three times).
const CASES: u32 = 32;

#[derive(Debug, Clone, Copy)]
enum Layout {
    Vault,
    Okf,
    /// A published evolve repository: `guideline/*.md`, no `.evolve/`.
    BareEvolve,
    /// `<project>/.evolve/entities/`, with the log and vetoed folder beside the root.
    EvolveProject,
    /// A vault inside an OKF bundle that is a store of its own.
    Nested,
}

/// One generated store and what may change around it.
struct World {
    _tmp: tempfile::TempDir,
    /// The folder whose whole tree is watched.
    top: PathBuf,
    root: PathBuf,
    /// Entity ids the store holds.
    ids: Vec<String>,
    /// What may change besides the root (folio's state and the format's own places).
    allowed: Vec<PathBuf>,
}

impl World {
    fn outside(&self) -> std::collections::BTreeMap<String, Option<Vec<u8>>> {
        let mut skip: Vec<&Path> = vec![self.root.as_path()];
        skip.extend(self.allowed.iter().map(PathBuf::as_path));
        tree(&self.top, &skip)
    }

    /// An id or destination template made concrete: `{id N}` picks a real id, `{top}` is the
    /// watched folder's absolute path.
    fn fill(&self, template: &str, pick: usize) -> String {
        let id = &self.ids[pick % self.ids.len()];
        template.replace("{id}", id).replace("{top}", self.top.to_str().unwrap())
    }
}

fn entity_text(layout: Layout, title: &str) -> String {
    let quoted = serde_json::to_string(title).unwrap();
    // Links that lead out of the store in every form a store may hold.
    let body = "See [[other]], [secret](../outside/secret.md), [abs](/etc/hostname) and [up](../../x.md).\n";
    match layout {
        Layout::Vault | Layout::Nested => format!("---\ntitle: {quoted}\nstatus: draft\n---\n# {title}\n\n{body}"),
        Layout::Okf => {
            format!("---\ntype: Note\ntitle: {quoted}\ndescription: {quoted}\nstatus: draft\n---\n# {title}\n\n{body}")
        }
        Layout::BareEvolve | Layout::EvolveProject => {
            let line = title.replace(['\n', '\r'], " ");
            format!("---\ntype: guideline\ntrigger: {line}\n---\n{line}\n\n{body}")
        }
    }
}

fn build(layout: Layout, names: &[String], titles: &[String], symlinks: bool) -> World {
    let tmp = tempfile::tempdir().unwrap();
    let top = tmp.path().join("top");
    write(&top, "outside/secret.md", "---\ntitle: Secret\n---\n# not the store's\n");
    write(&top, "index.md", "# the folder around the store\n");
    let (root, allowed) = match layout {
        Layout::EvolveProject => {
            let evolve = top.join("proj/.evolve");
            write(&evolve, "audit.log", "{\"action\": \"sync\", \"delta\": 1, \"ts\": \"2026-01-01T00:00:00Z\"}\n");
            let allowed = vec![evolve.join("folio"), evolve.join("audit.log"), evolve.join("vetoed")];
            (evolve.join("entities"), allowed)
        }
        Layout::Nested => {
            write(&top, "outer/index.md", "# Outer\n\n* [Note](note.md) - a note\n");
            write(&top, "outer/note.md", "---\ntype: Note\ntitle: Note\ndescription: a note\n---\n# Note\n");
            (top.join("outer/inner"), Vec::new())
        }
        _ => (top.join("store"), Vec::new()),
    };
    std::fs::create_dir_all(&root).unwrap();
    if let Layout::Okf = layout {
        write(&root, "index.md", "# Store\n");
    }
    if let Layout::Vault | Layout::Nested = layout {
        std::fs::create_dir_all(root.join(".obsidian")).unwrap();
    }
    let mut ids = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let mut id = match layout {
            Layout::BareEvolve | Layout::EvolveProject => format!("guideline/{name}"),
            _ => name.clone(),
        };
        // The symlinks below take the root's names `link` and `up`: an entity folder of that
        // name would collide with them, so it moves aside.
        if symlinks && (id.starts_with("link/") || id.starts_with("up/")) {
            id.insert(0, 'n');
        }
        if ids.contains(&id) {
            continue;
        }
        write(&root, &format!("{id}.md"), entity_text(layout, &titles[i % titles.len()]));
        ids.push(id);
    }
    #[cfg(unix)]
    if symlinks {
        std::os::unix::fs::symlink(top.join("outside"), root.join("link")).unwrap();
        std::os::unix::fs::symlink(&top, root.join("up")).unwrap();
    }
    #[cfg(not(unix))]
    let _ = symlinks;
    World { _tmp: tmp, top, root, ids, allowed }
}

fn layout() -> impl Strategy<Value = Layout> {
    prop_oneof![
        Just(Layout::Vault),
        Just(Layout::Okf),
        Just(Layout::BareEvolve),
        Just(Layout::EvolveProject),
        Just(Layout::Nested),
    ]
}

fn names() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec("[a-z]{1,6}(/[a-z]{1,5})?", 1..5)
}

fn titles() -> impl Strategy<Value = Vec<String>> {
    prop::collection::vec(prop_oneof!["[ -~]{0,24}", Just("../../outside/secret".to_string())], 1..4)
}

/// Ids a command is told to act on: real ones mostly, and every way of naming a file outside.
fn id() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => Just("{id}".to_string()),
        1 => Just("../outside/secret".to_string()),
        1 => Just("{top}/outside/secret".to_string()),
        1 => Just("link/secret".to_string()),
        1 => Just("up/outside/secret".to_string()),
        1 => Just("{id}/../../../outside/secret".to_string()),
        1 => "[ -~]{1,16}",
    ]
}

/// Where `mv` is told to put an entity.
fn destination() -> impl Strategy<Value = String> {
    prop_oneof![
        2 => "[a-z]{1,6}(/[a-z]{1,6}){0,2}",
        1 => Just("{id}-moved/deeper/x".to_string()),
        1 => Just("../escaped".to_string()),
        1 => Just("../outside/new".to_string()),
        1 => Just("{top}/outside/abs".to_string()),
        1 => Just("link/new".to_string()),
        1 => Just("up/outside/new".to_string()),
        1 => Just("a/../../b".to_string()),
        1 => Just("./../../../c".to_string()),
        1 => "[ -~]{1,16}",
    ]
}

#[derive(Debug, Clone)]
struct Case {
    layout: Layout,
    names: Vec<String>,
    titles: Vec<String>,
    symlinks: bool,
    pick: usize,
}

fn case() -> impl Strategy<Value = Case> {
    (layout(), names(), titles(), any::<bool>(), any::<usize>())
        .prop_map(|(layout, names, titles, symlinks, pick)| Case { layout, names, titles, symlinks, pick })
}

/// Run one command (arguments after the store path; `{id}`/`{top}` filled in), then undo,
/// checking after each that nothing outside changed and nothing crashed.
fn check(case: &Case, command: &[&str]) -> Result<(), TestCaseError> {
    let world = build(case.layout, &case.names, &case.titles, case.symlinks);
    let before = world.outside();
    let root = world.root.to_str().unwrap().to_string();
    let filled: Vec<String> = command.iter().map(|a| world.fill(a, case.pick)).collect();
    let (sub, rest) = filled.split_first().unwrap();
    let mut args: Vec<&str> = vec![sub.as_str(), root.as_str()];
    args.extend(rest.iter().map(String::as_str));
    if sub != "index" {
        args.extend(["--as", "human:prop"]);
    }
    for run in [args, vec!["undo", root.as_str(), "--as", "human:prop"]] {
        let o = folio(&run);
        let err = String::from_utf8_lossy(&o.stderr);
        prop_assert_ne!(o.status.code(), Some(101), "folio {:?} crashed: {}", run, err);
        prop_assert!(o.status.code().is_some(), "folio {:?} was killed: {}", run, err);
        let after = world.outside();
        let changed: Vec<&String> =
            before.keys().chain(after.keys()).filter(|k| before.get(*k) != after.get(*k)).collect();
        prop_assert!(changed.is_empty(), "folio {:?} changed {:?} outside {}: {}", run, changed, root, err);
    }
    Ok(())
}

fn config() -> ProptestConfig {
    ProptestConfig { cases: CASES, failure_persistence: None, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn approve(c in case(), id in id()) {
        check(&c, &["review", "approve", &id])?;
    }

    #[test]
    fn veto(c in case(), id in id(), reason in "[ -~]{1,20}") {
        check(&c, &["review", "veto", &id, "--reason", &reason])?;
    }

    #[test]
    fn forget(c in case(), id in id()) {
        check(&c, &["review", "forget", &id])?;
    }

    #[test]
    fn promote(c in case(), id in id()) {
        check(&c, &["review", "promote", &id])?;
    }

    #[test]
    fn merge(c in case(), from in id(), into in id()) {
        check(&c, &["review", "merge", &from, &into])?;
    }

    #[test]
    fn mv(c in case(), id in id(), to in destination()) {
        check(&c, &["mv", &id, &to])?;
    }

    #[test]
    fn set_and_unset(c in case(), id in id(), value in "[ -~]{0,20}", unset in any::<bool>()) {
        let key = if unset { "status" } else { "title" };
        let json = serde_json::to_string(&value).unwrap();
        if unset {
            check(&c, &["unset", &id, key])?;
        } else {
            check(&c, &["set", &id, key, &json])?;
        }
    }

    #[test]
    fn lint_fix_index_and_migrate(c in case(), which in 0..3usize) {
        let command: &[&str] = match which {
            0 => &["lint", "--fix"],
            1 => &["index"],
            _ => &["migrate", "--to", "okf"],
        };
        check(&c, command)?;
    }
}

/// A case CI once drew: an entity folder named like one of the symlinks (`up/a`) beside them.
#[test]
fn entity_folder_named_like_a_symlink() {
    let c = Case {
        layout: Layout::Vault,
        names: vec!["up/a".into()],
        titles: vec![String::new()],
        symlinks: true,
        pick: 0,
    };
    check(&c, &["mv", "{id}", "lsa"]).unwrap();
}
