//! The graph pane's background work: the neighbourhood laid out for the canvas
//! (`neighbourhood::layout`), and its export as DOT.
use folio_core::store::Store;
use folio_core::store::lint;
use folio_core::store::model::entity::EntityIdx;

/// `<folio dir>/exports/<id>-d<depth>.dot`: the neighbourhood as `folio graph --around` writes it.
pub fn export_graph(store: &Store, center: EntityIdx, depth: u8) -> Result<String, String> {
    let g = folio_core::store::model::graph::around(store, center, depth as usize);
    let dot = folio_core::store::model::graph::to_dot(store, &g);
    let dir = lint::config::folio_dir(&store.root, store.kind()).join("exports");
    let slug: String = store
        .entity(center)
        .id
        .chars()
        .map(|c| if c.is_alphanumeric() || c == '-' || c == '_' { c } else { '-' })
        .collect();
    let path = dir.join(format!("{slug}-d{depth}.dot"));
    let rel = folio_core::store::model::relpath::from_root(&store.root, &path);
    if let Some(link) = folio_core::store::write::fs_ops::link_on_the_way(&store.root, std::path::Path::new(&rel)) {
        return Err(format!("{} is a symbolic link; folio does not write its state through a link", link.display()));
    }
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    std::fs::write(&path, dot).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(format!("exported {} nodes to {}", g.nodes.len(), path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_export_names_its_file() {
        let dir = tempfile::tempdir().unwrap();
        let w = |p: &str, t: &str| std::fs::write(dir.path().join(p), t).unwrap();
        w("a.md", "---\ntitle: A\n---\none\ntwo [[b]]\nthree\nfour\nfive\nsix\n");
        w("b.md", "# B\n\nback to [[a]]\n");
        let store = Store::load(dir.path(), folio_core::store::dialect::vault::KIND, "test".into());
        let a = store.find("a").unwrap();
        let msg = export_graph(&store, a, 1).unwrap();
        let out = dir.path().join(".folio/exports/a-d1.dot");
        assert!(msg.starts_with("exported 2 nodes to "), "{msg}");
        let dot = std::fs::read_to_string(out).unwrap();
        assert!(dot.contains("\"a\" -> \"b\";") && dot.contains("\"b\" -> \"a\";"), "{dot}");
    }
}
