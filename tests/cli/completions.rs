//! `folio completions SHELL` and `folio man`: the scripts and pages come from clap's own
//! definitions, so each must name every subcommand this build has, and must parse.
use std::process::{Command, Output};

use clap::CommandFactory;

fn folio(args: &[&str]) -> Output {
    let home = tempfile::tempdir().unwrap();
    crate::support::folio_in(home.path()).args(args).output().expect("folio runs")
}

/// stdout of a run that must succeed.
fn ok(args: &[&str]) -> String {
    let o = folio(args);
    assert_eq!(o.status.code(), Some(0), "folio {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).expect("UTF-8 output")
}

/// Every visible subcommand, as clap defines them (the list the help prints).
fn subcommands() -> Vec<String> {
    let names: Vec<String> = folio::cli::Cli::command()
        .get_subcommands()
        .filter(|s| !s.is_hide_set())
        .map(|s| s.get_name().to_string())
        .collect();
    for expected in ["lint", "review", "completions", "man"] {
        assert!(names.iter().any(|n| n == expected), "clap lists {expected}: {names:?}");
    }
    names
}

#[test]
fn the_bash_script_parses() {
    let script = ok(&["completions", "bash"]);
    assert!(script.contains("complete -F _folio"), "bash registers its completer:\n{script}");
    let Ok(probe) = Command::new("bash").arg("--version").output() else {
        eprintln!("SKIPPED: bash is not installed");
        return;
    };
    assert!(probe.status.success());
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("folio.bash");
    std::fs::write(&file, &script).unwrap();
    let o = Command::new("bash").arg("-n").arg(&file).output().unwrap();
    assert!(o.status.success(), "bash -n: {}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn zsh_and_fish_scripts_name_every_subcommand() {
    let zsh = ok(&["completions", "zsh"]);
    assert!(zsh.starts_with("#compdef folio"), "a zsh completion file:\n{}", &zsh[..zsh.len().min(200)]);
    let fish = ok(&["completions", "fish"]);
    for name in subcommands() {
        assert!(zsh.contains(&format!("'{name}:")), "zsh completes `folio {name}`");
        assert!(fish.contains(&format!("-a \"{name}\"")), "fish completes `folio {name}`");
    }
}

#[test]
fn elvish_and_powershell_scripts_are_written_too() {
    for shell in ["elvish", "powershell"] {
        let script = ok(&["completions", shell]);
        assert!(script.contains("folio") && script.contains("review"), "{shell} script names folio's commands");
    }
}

#[test]
fn an_unknown_shell_is_a_usage_error() {
    let o = folio(&["completions", "tcsh"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert!(String::from_utf8_lossy(&o.stderr).contains("bash"), "the error lists the shells");
}

#[test]
fn the_man_page_is_roff_and_names_the_subcommands() {
    let page = ok(&["man"]);
    // roff_crate opens with two lines defining the apostrophe string; `.TH` is the first macro
    // of the page itself and comes before every section.
    let th = page.lines().position(|l| l.starts_with(".TH ")).expect("a .TH line");
    assert!(page.lines().nth(th).unwrap().starts_with(".TH folio 1"), "the title line: {page}");
    assert!(th <= 2, ".TH opens the page (line {th})");
    assert!(
        page.lines().take(th).all(|l| l.starts_with(".ie") || l.starts_with(".el")),
        "only the preamble before .TH"
    );
    let first_section = page.lines().position(|l| l.starts_with(".SH")).unwrap();
    assert!(th < first_section);
    assert!(page.contains(".SH SUBCOMMANDS"));
    for name in subcommands() {
        assert!(page.contains(&format!("folio\\-{name}(1)")), "the page names `folio {name}`");
    }
}

#[test]
fn man_dir_writes_one_page_per_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("man1");
    let listed = ok(&["man", "--dir", out.to_str().unwrap()]);
    for name in subcommands() {
        let page = out.join(format!("folio-{name}.1"));
        let text = std::fs::read_to_string(&page).unwrap_or_else(|e| panic!("{}: {e}", page.display()));
        assert!(text.contains(&format!(".TH folio-{name} 1")), "{}", page.display());
        assert!(listed.contains(&page.display().to_string()), "the written page is listed: {listed}");
    }
    // Nested verbs get pages too, and the top-level page is among them.
    assert!(out.join("folio-review-approve.1").is_file());
    assert!(out.join("folio.1").is_file());
}
