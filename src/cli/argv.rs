//! One grammar for every command: `folio <command> [PATH] <args>` (issue 23). `review` takes
//! its store before its verb (`folio review PATH approve ID`); `folio review approve PATH ID`
//! and `folio review list PATH` are turned into that order before parsing, so both work.
use std::ffi::OsString;
use std::path::Path;

use clap::CommandFactory;

/// `args` (with the program name first) with a review verb's leading store folder moved
/// before the verb. Anything else is returned as it is.
pub fn normalize(mut args: Vec<OsString>) -> Vec<OsString> {
    let cli = super::Cli::command();
    let Some(review_at) = first_positional(&cli, &args, 1) else { return args };
    if args[review_at] != "review" {
        return args;
    }
    let Some(review) = cli.find_subcommand("review") else { return args };
    let Some(verb_at) = first_positional(review, &args, review_at + 1) else { return args };
    let Some(verb) = args[verb_at].to_str().and_then(|v| review.find_subcommand(v)) else { return args };
    let Some(path_at) = first_positional(verb, &args, verb_at + 1) else { return args };
    if !Path::new(&args[path_at]).is_dir() {
        return args;
    }
    // A verb that takes ids needs one after the folder, so that an id that happens to name a
    // folder is never taken for the store.
    let takes_ids = verb.get_positionals().next().is_some();
    if takes_ids && first_positional(verb, &args, path_at + 1).is_none() {
        return args;
    }
    let path = args.remove(path_at);
    args.insert(verb_at, path);
    args
}

/// The index of the first argument from `from` on that is not an option (nor an option's
/// value), as `cmd` (and the global options) parse them; `None` after `--` or at the end.
fn first_positional(cmd: &clap::Command, args: &[OsString], from: usize) -> Option<usize> {
    let root = super::Cli::command();
    let takes_value = |name: &str| {
        let find = |c: &clap::Command| {
            c.get_arguments().find(|a| a.get_long() == Some(name)).map(|a| a.get_action().takes_values())
        };
        find(cmd).or_else(|| find(&root)).unwrap_or(false)
    };
    let mut i = from;
    while i < args.len() {
        let Some(a) = args[i].to_str() else { return Some(i) };
        if a == "--" {
            return None;
        }
        match a.strip_prefix("--") {
            Some(long) if !long.contains('=') && takes_value(long) => i += 2,
            Some(_) => i += 1,
            None if a.starts_with('-') && a.len() > 1 => i += 1,
            None => return Some(i),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(args: &[&str]) -> Vec<String> {
        let v = std::iter::once("folio").chain(args.iter().copied()).map(OsString::from).collect();
        normalize(v).into_iter().skip(1).map(|a| a.into_string().unwrap()).collect()
    }

    #[test]
    fn a_review_verb_may_come_before_the_store() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().to_str().unwrap();
        assert_eq!(run(&["review", "list", d]), ["review", d, "list"]);
        assert_eq!(run(&["review", "list", "--json", d]), ["review", d, "list", "--json"]);
        assert_eq!(run(&["review", "list", "--filter", "kind:x", d]), ["review", d, "list", "--filter", "kind:x"]);
        assert_eq!(
            run(&["--dialect", "okf", "review", "approve", d, "a", "b"]),
            ["--dialect", "okf", "review", d, "approve", "a", "b"]
        );
        assert_eq!(run(&["review", "veto", "--reason", "dup", d, "a"]), ["review", d, "veto", "--reason", "dup", "a"]);
        // The old order, ids that are not folders, and an id alone stay as written.
        assert_eq!(run(&["review", d, "list"]), ["review", d, "list"]);
        assert_eq!(run(&["review", "approve", "not/a/folder", "b"]), ["review", "approve", "not/a/folder", "b"]);
        assert_eq!(run(&["review", "approve", d]), ["review", "approve", d]);
        assert_eq!(run(&["stats", d]), ["stats", d]);
    }
}
