//! Link rules: `broken-link`, `link-escapes-root`, `wikilink-syntax` (OKF, with its fix) and
//! `link-into-sources` (AIP-10). Every link was resolved at load time; these only look.
use super::Finding;
use super::fix::{self, ByteEdit, Change, Expected, Fix, content_hash};
use super::manifest::{Kind, ManifestLints};
use crate::store::model::entity::{EntityIdx, Link, LinkSyntax, Resolution, rule};
use crate::store::{Store, read::load};

/// The link findings of one entity.
pub fn check_entity(store: &Store, manifest: &ManifestLints, idx: EntityIdx, out: &mut Vec<Finding>) {
    let format = store.kind().format();
    let e = store.entity(idx);
    if e.escapes_root() {
        return;
    }
    let mut wikilinks = Vec::new();
    for l in &e.links {
        let at = |rule, message| Finding::on_entity(store, idx, rule, l.line, l.col, message);
        match &l.resolution {
            Resolution::Broken => out.push(
                at(rule::BROKEN_LINK, format!("`{}` does not resolve inside the store", l.target()))
                    .with_severity(manifest.severity(Kind::BrokenRef, e.kind.as_deref())),
            ),
            Resolution::Escapes => out.push(at(
                rule::LINK_ESCAPES_ROOT,
                format!("`{}` leads outside the store root; folio does not follow it", l.target()),
            )),
            _ => {}
        }
        if let Some((rule, message)) = format.forbidden_link(l.syntax, l.target(), resolved_path(store, &l.resolution))
        {
            if rule == rule::WIKILINK_SYNTAX {
                wikilinks.push(out.len());
            }
            out.push(at(rule, message));
        }
    }
    if !wikilinks.is_empty() {
        attach_wikilink_fixes(store, idx, &wikilinks, out);
    }
}

fn resolved_path<'a>(store: &'a Store, r: &'a Resolution) -> Option<&'a str> {
    match r {
        Resolution::Entity(t) => Some(store.entity(*t).path.as_str()),
        Resolution::File(p) => Some(p.as_str()),
        _ => None,
    }
}

/// Give each wikilink finding of one entity its fix, reading the file once: the fix is computed
/// from the exact bytes, so a link the parser placed oddly is left without one.
fn attach_wikilink_fixes(store: &Store, idx: EntityIdx, findings: &[usize], out: &mut [Finding]) {
    let e = store.entity(idx);
    let wiki: Vec<&Link> = e.links.iter().filter(|l| l.syntax == LinkSyntax::Wiki).collect();
    if wiki.iter().all(|l| l.entity().is_none()) {
        return;
    }
    let Ok((bytes, false)) = store.storage().read_capped(&e.path, load::MAX_READ) else { return };
    // Bound to the file as loaded when its stamp can tell (no hash), else to these bytes.
    let expected = match fix::loaded_stamp(store, idx) {
        Some(stamp) => Expected::Loaded(stamp),
        None => Expected::Hash(content_hash(&bytes)),
    };
    for (&at, link) in findings.iter().zip(wiki) {
        let Some(target) = link.entity() else { continue };
        let Some(replacement) = rewrite(&bytes, link, &store.entity(target).path) else { continue };
        let range = link.span.start as usize..link.span.end as usize;
        out[at].fix = Some(Box::new(Fix {
            path: e.path.clone(),
            description: format!("rewrite to {replacement}"),
            expected: expected.clone(),
            change: Change::Edits(vec![ByteEdit { range, replacement }]),
        }));
    }
}

/// `[[name]]` / `[[name|label]]` as `[label](/path.md)`; `None` when the bytes at the link's
/// span are not a plain wikilink or it points at a heading (anchors differ between formats).
pub fn rewrite(bytes: &[u8], link: &Link, target_path: &str) -> Option<String> {
    let raw = bytes.get(link.span.start as usize..link.span.end as usize)?;
    let inner = std::str::from_utf8(raw).ok()?.strip_prefix("[[")?.strip_suffix("]]")?;
    if inner.contains(['[', ']', '\n']) {
        return None;
    }
    let (name, label) = match inner.split_once('|') {
        Some((name, label)) => (name, label),
        None => (inner, inner),
    };
    if name.contains('#') || label.trim().is_empty() {
        return None;
    }
    Some(format!("[{}](/{})", label.trim(), encode_destination(target_path)))
}

/// A link destination: characters that would end or break it are percent-encoded.
fn encode_destination(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for c in path.chars() {
        match c {
            '%' => out.push_str("%25"),
            ' ' => out.push_str("%20"),
            '(' => out.push_str("%28"),
            ')' => out.push_str("%29"),
            '<' => out.push_str("%3C"),
            '>' => out.push_str("%3E"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(start: u32, end: u32) -> Link {
        let mut l = Link::new(LinkSyntax::Wiki, "", None, start..end, 1, 1);
        l.resolution = Resolution::Entity(0);
        l
    }

    #[test]
    fn rewrites_plain_and_aliased_wikilinks() {
        let t = b"see [[users]] and [[Order Items|the items]].";
        assert_eq!(rewrite(t, &link(4, 13), "tables/users.md").as_deref(), Some("[users](/tables/users.md)"));
        assert_eq!(
            rewrite(t, &link(18, 43), "tables/order items.md").as_deref(),
            Some("[the items](/tables/order%20items.md)")
        );
    }

    #[test]
    fn leaves_anchors_and_odd_spans_alone() {
        let t = b"[[users#Schema]] [users](x)";
        assert_eq!(rewrite(t, &link(0, 16), "users.md"), None);
        assert_eq!(rewrite(t, &link(17, 27), "users.md"), None);
        assert_eq!(rewrite(t, &link(17, 99), "users.md"), None);
    }
}
