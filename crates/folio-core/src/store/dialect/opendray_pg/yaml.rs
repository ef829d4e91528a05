//! A node's frontmatter written as serde_yaml_ng writes it, byte for byte, for the shapes a
//! row gives nearly always: plain scalars, lists of them, and maps of those one level deep.
//! serde_yaml_ng's emitter was the largest share of a first open once the renderings were no
//! longer parsed back (docs/benchmarks.md, "Round: issue 43 (… seventh session …)"); the
//! renderings are what the snapshot keeps and every write compares, so they must not change.
//! Anything this does not know serde_yaml_ng writes the same way — a string it might quote,
//! fold or write as a block, a float outside plain decimals, deeper nesting — returns None,
//! and the caller lets serde_yaml_ng write the whole block.
use std::fmt::Write;

use crate::store::read::frontmatter::view::{Val, View};

/// The YAML serde_yaml_ng writes for `fields` (a mapping at the top), or None.
pub fn write(fields: &View) -> Option<String> {
    if fields.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(512);
    for (k, v) in fields.iter() {
        key(&mut out, k, 0)?;
        match v {
            Val::List(items) if !items.is_empty() => list(&mut out, items, 0)?,
            Val::Map(m) if !m.is_empty() => {
                out.push('\n');
                for (k2, v2) in m.iter() {
                    key(&mut out, k2, 2)?;
                    match v2 {
                        Val::List(items) if !items.is_empty() => list(&mut out, items, 2)?,
                        Val::List(_) => out.push_str(" []\n"),
                        Val::Map(m2) if m2.is_empty() => out.push_str(" {}\n"),
                        Val::Map(_) => return None,
                        scalar => {
                            out.push(' ');
                            scalar_text(&mut out, scalar)?;
                            out.push('\n');
                        }
                    }
                }
            }
            Val::List(_) => out.push_str(" []\n"),
            Val::Map(_) => out.push_str(" {}\n"),
            scalar => {
                out.push(' ');
                scalar_text(&mut out, scalar)?;
                out.push('\n');
            }
        }
    }
    Some(out)
}

fn key(out: &mut String, k: &str, indent: usize) -> Option<()> {
    if !plain(k) || k.len() > 64 {
        return None;
    }
    out.extend(std::iter::repeat_n(' ', indent));
    out.push_str(k);
    out.push(':');
    Some(())
}

/// A block list of scalars under a key at `indent` (serde_yaml_ng puts the dashes at the
/// key's own indent).
fn list(out: &mut String, items: &[Val], indent: usize) -> Option<()> {
    out.push('\n');
    for item in items {
        if matches!(item, Val::List(_) | Val::Map(_)) {
            return None;
        }
        out.extend(std::iter::repeat_n(' ', indent));
        out.push_str("- ");
        scalar_text(out, item)?;
        out.push('\n');
    }
    Some(())
}

fn scalar_text(out: &mut String, v: &Val) -> Option<()> {
    match v {
        Val::Null => out.push_str("null"),
        Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Val::Num(n) if n.is_i64() || n.is_u64() => write!(out, "{n}").ok()?,
        // Rust's shortest decimal is ryu's (serde_yaml_ng's) for a float with a fraction
        // between 1e-4 and 1e15; elsewhere ryu writes an exponent or `.0`.
        Val::Num(n) => {
            let f = n.as_f64()?;
            if f.fract() == 0.0 || !(1e-4..1e15).contains(&f.abs()) {
                return None;
            }
            write!(out, "{f}").ok()?
        }
        Val::Str(s) if plain(s) => out.push_str(s),
        _ => return None,
    }
    Some(())
}

/// Whether serde_yaml_ng writes `s` as a plain scalar: a string that reads back as a string
/// (not null, a boolean or a number) and that the emitter needs no quotes for. Kept narrow:
/// ASCII letters, digits and `_ - . / ( )`, single inner spaces and colons not followed by a
/// space, starting with a letter or `_` — or a UTC timestamp as the rows give them.
fn plain(s: &str) -> bool {
    let b = s.as_bytes();
    let Some(&first) = b.first() else { return false };
    if is_timestamp(b) {
        return true;
    }
    if !(first.is_ascii_alphabetic() || first == b'_') || b[b.len() - 1] == b' ' || b[b.len() - 1] == b':' {
        return false;
    }
    // One pass over the bytes (every string of 100k nodes is asked on a first open): each one
    // allowed, and no space after a space or a colon.
    let mut prev = 0u8;
    for &c in b {
        let allowed = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'.' | b'/' | b'(' | b')' | b' ' | b':');
        if !allowed || (c == b' ' && matches!(prev, b' ' | b':')) {
            return false;
        }
        prev = c;
    }
    !(matches!(b.len(), 4 | 5)
        && matches!(s, "null" | "Null" | "NULL" | "true" | "True" | "TRUE" | "false" | "False" | "FALSE"))
}

/// `YYYY-MM-DDTHH:MM:SS.ffffffZ` (`rows::ts!`): a plain string to serde_yaml_ng.
fn is_timestamp(b: &[u8]) -> bool {
    b.len() == 27
        && b.iter().enumerate().all(|(i, &c)| match i {
            4 | 7 => c == b'-',
            10 => c == b'T',
            13 | 16 => c == b':',
            19 => c == b'.',
            26 => c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::{Map, Value, json};

    fn write(fields: &Map<String, Value>) -> Option<String> {
        super::write(&View::of(fields))
    }

    fn serde(fields: &Map<String, Value>) -> String {
        serde_yaml_ng::to_string(fields).unwrap()
    }

    #[test]
    fn a_typical_node_is_written_as_serde_yaml_ng_writes_it() {
        let Value::Object(m) = json!({
            "id": "en-cold-partition-18846", "kind": "entity", "entity_type": "service",
            "title": "Cold Cluster 56728", "scope": "global", "scope_key": "homelab", "maturity": "candidate",
            "confidence": 0.6, "enabled": true, "use_count": 0, "success_count": 12, "failure_count": -1,
            "created_at": "2026-06-19T09:00:00.000000Z", "updated_at": "2026-07-20T09:00:00.123456Z",
            "aliases": [], "sources": ["mem-56728", "mem-2"],
            "relations": {"runs_on": ["en-cold-partition-18846"], "uses": ["pl-raw-endpoint-86210", "x"]},
            "provenance": {"source": "folio-gen", "n": 3, "empty": [], "m": {}, "list": ["a", 1, true, null]},
            "last": {}
        }) else {
            unreachable!()
        };
        assert_eq!(write(&m).as_deref(), Some(serde(&m).as_str()));
    }

    #[test]
    fn what_it_does_not_know_is_left_to_serde_yaml_ng() {
        for v in [json!("yes: no"), json!("true"), json!("0123"), json!("a\nb"), json!(" a"), json!(1.0), json!(1e-9)] {
            let Value::Object(m) = json!({ "k": v }) else { unreachable!() };
            assert_eq!(write(&m), None, "{v}");
        }
        let Value::Object(m) = json!({"p": {"deep": {"er": 1}}}) else { unreachable!() };
        assert_eq!(write(&m), None);
    }

    fn scalar() -> BoxedStrategy<Value> {
        prop_oneof![
            "[a-zA-Z_0-9 :.#'\"()/-]{0,12}".prop_map(Value::from),
            "[a-z]{1,6}".prop_map(Value::from),
            "(true|false|null|True|NULL|yes|on|inf|nan|e5|0x1f|_|-|a: b|a:b|a #b)".prop_map(Value::from),
            "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z".prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
            (0u32..1000).prop_map(|n| Value::from(n as f64 / 7.0)),
            any::<bool>().prop_map(Value::from),
            Just(Value::Null),
        ]
        .boxed()
    }

    fn value() -> impl Strategy<Value = Value> {
        let list = prop::collection::vec(scalar(), 0..3).prop_map(Value::Array).boxed();
        let leaf = prop_oneof![scalar(), list.clone()].boxed();
        let map = prop::collection::vec(("[a-z_]{1,6}|[a-z ]{1,4}|true|1", leaf.clone()), 0..3)
            .prop_map(|kv| Value::Object(kv.into_iter().collect()))
            .boxed();
        let deep = prop::collection::vec(("[a-z]{1,3}", map.clone()), 0..2)
            .prop_map(|kv| Value::Object(kv.into_iter().collect()));
        prop_oneof![scalar(), list, map, deep]
    }

    proptest! {
        /// Whatever it writes is what serde_yaml_ng writes.
        #[test]
        fn it_writes_what_serde_yaml_ng_writes(kv in prop::collection::vec(("[a-z_]{1,8}|[a-z: ]{1,4}", value()), 0..6)) {
            let m: Map<String, Value> = kv.into_iter().collect();
            if let Some(mine) = write(&m) {
                prop_assert_eq!(mine, serde(&m));
            }
        }
    }
}
