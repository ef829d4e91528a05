//! A cheap pre-check that keeps YAML bombs away from the YAML parser.
//!
//! libyaml (under serde_yaml_ng) is quadratic in flow nesting depth (100,000 nested `[` take
//! minutes) and replays every alias's anchored subtree, so a block of chained anchors costs
//! up to a hundred times its size. Frontmatter written by people and honest agents nests a few
//! levels and rarely uses aliases, so both are capped before parsing.

/// Deepest `[`/`{` nesting accepted.
pub const MAX_FLOW_DEPTH: usize = 64;
/// Most `*alias` references accepted in one block.
pub const MAX_ALIASES: usize = 32;

/// Why `yaml` is refused, or Ok when it is safe to hand to the parser.
pub fn check(yaml: &str) -> Result<(), String> {
    let mut depth = 0usize;
    let mut aliases = 0usize;
    let mut quote: Option<char> = None;
    let mut prev = '\n';
    let mut chars = yaml.chars().peekable();
    while let Some(c) = chars.next() {
        match quote {
            Some('"') if c == '\\' => {
                chars.next();
            }
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => {
                let after_separator = prev.is_whitespace() || matches!(prev, '[' | '{' | ',' | ':');
                match c {
                    '#' if prev.is_whitespace() => while chars.next_if(|&n| n != '\n').is_some() {},
                    '"' | '\'' if after_separator => quote = Some(c),
                    '[' | '{' => {
                        depth += 1;
                        if depth > MAX_FLOW_DEPTH {
                            return Err(format!("YAML nests deeper than {MAX_FLOW_DEPTH} levels; not parsed"));
                        }
                    }
                    ']' | '}' => depth = depth.saturating_sub(1),
                    '*' if after_separator && chars.peek().is_some_and(|n| !n.is_whitespace()) => {
                        aliases += 1;
                        if aliases > MAX_ALIASES {
                            return Err(format!(
                                "YAML uses more than {MAX_ALIASES} aliases (a YAML bomb guard); not parsed"
                            ));
                        }
                    }
                    _ => {}
                }
            }
        }
        prev = c;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_frontmatter_passes() {
        assert_eq!(check("title: A\ntags: [a, [b, c], {d: e}]\nref: &r x\nagain: *r\n"), Ok(()));
        assert_eq!(check("note: \"[[[[[[\" # [[[[[[\nq: '*a *b' \n"), Ok(()));
        assert_eq!(check("emph: a *b* c\nmath: 2 * 3\n"), Ok(()));
    }

    #[test]
    fn deep_nesting_and_many_aliases_are_refused() {
        let deep = format!("d: {}{}\n", "[".repeat(65), "]".repeat(65));
        assert!(check(&deep).unwrap_err().contains("deeper than 64"));
        let ok_depth = format!("d: {}{}\n", "[".repeat(64), "]".repeat(64));
        assert_eq!(check(&ok_depth), Ok(()));
        let laughs: String = (1..20).map(|i| format!("a{i}: &x{i} [*x{0}, *x{0}]\n", i - 1)).collect();
        assert!(check(&format!("a0: &x0 [lol]\n{laughs}")).unwrap_err().contains("aliases"));
    }
}
