//! `folio lint [PATH]`: the lint engine's findings as text, JSON or SARIF; `--explain ID`;
//! `--fix --dry-run` shows the safe fixes as a unified diff.
use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{Context, bail};

use super::common::{Global, print_json};
use super::escape;
use super::write_flags::{WriteFlags, open_resolved_reading, report as report_write};
use folio_core::store::lint::{self, Finding, LintConfig, Report, fix, rules};
use folio_core::store::model::entity::Severity;
use folio_core::store::{Reads, Store};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum MinSeverity {
    Error,
    Warn,
    Info,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Store to lint (default: found from the current directory upward).
    pub path: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Only report this rule (repeatable).
    #[arg(long = "rule", value_name = "ID")]
    pub rules: Vec<String>,
    /// Only report findings at or above this severity.
    #[arg(long, value_enum, default_value_t = MinSeverity::Info)]
    pub severity: MinSeverity,
    /// Apply the safe fixes (legacy-trigger, wikilink-syntax, catalog-stale) through the
    /// write path, record them in the store's log, then report what is left.
    #[arg(long)]
    pub fix: bool,
    /// With --fix: print the unified diff of every fix; write nothing.
    #[arg(long, requires = "fix")]
    pub dry_run: bool,
    /// Append this lint pass to the store's own log (AIP-10 `_log.md`, OKF `log.md`, …).
    #[arg(long)]
    pub log: bool,
    /// Who is recorded for --fix and --log (default: human:$USER).
    #[arg(long = "as", value_name = "human:ID")]
    pub actor: Option<String>,
    /// Print what a rule checks and exit.
    #[arg(long, value_name = "ID", conflicts_with_all = ["fix", "dry_run", "log"])]
    pub explain: Option<String>,
    /// Also list the findings the store's config ignores (`[[ignore]]`), with their reasons.
    #[arg(long)]
    pub show_ignored: bool,
    /// Ignore the findings of rule ID on --entity, for --reason: adds an `[[ignore]]` entry to
    /// the store's folio config (journaled and logged like every write), then exits.
    #[arg(long, value_name = "ID", requires_all = ["entity", "reason"], conflicts_with_all = ["fix", "log", "explain", "unignore"])]
    pub ignore: Option<String>,
    /// Remove the `[[ignore]]` entry of rule ID on --entity, then exit.
    #[arg(long, value_name = "ID", requires = "entity", conflicts_with_all = ["fix", "log", "explain"])]
    pub unignore: Option<String>,
    /// The entity (id) of --ignore / --unignore.
    #[arg(long, value_name = "ID")]
    pub entity: Option<String>,
    /// Why the finding is ignored (--ignore).
    #[arg(long, value_name = "TEXT")]
    pub reason: Option<String>,
}

pub fn run(g: &Global, a: Args) -> anyhow::Result<u8> {
    if let Some(id) = &a.explain {
        return explain(id);
    }
    let wanted: Vec<&str> = a.rules.iter().map(|id| known_rule(id)).collect::<anyhow::Result<_>>()?;
    let flags = WriteFlags { dry_run: a.dry_run, actor: a.actor.clone(), read_only: false };
    let writes = (a.fix && !a.dry_run) || a.log || a.ignore.is_some() || a.unignore.is_some();
    // Who writes is resolved only when something is written: a plain lint never asks.
    let actor = if writes || a.actor.is_some() { flags.actor()? } else { String::new() };
    let min = match a.severity {
        MinSeverity::Error => Severity::Error,
        MinSeverity::Warn => Severity::Warn,
        MinSeverity::Info => Severity::Info,
    };
    // The content rules compare every body: a load from the files makes their profiles as it reads,
    // unless the store's config turns both rules off or none of their findings is asked for.
    let wants_bodies = |root: &std::path::Path, kind| {
        LintConfig::load(root, kind).map_or(true, |c| c.for_report(&wanted, min).reads_bodies())
    };
    let reads =
        if a.ignore.is_some() || a.unignore.is_some() { Reads::Entities } else { Reads::ProfilesIf(&wants_bodies) };
    let mut store = super::common::one_shot(open_resolved_reading(g, a.path.as_deref(), !writes, reads)?);
    if a.ignore.is_some() || a.unignore.is_some() {
        return change_ignore(&store, &a, &actor, &flags);
    }
    let config = LintConfig::load(&store.root, store.kind())?.for_report(&wanted, min);
    let run_lint = |store: &Store| {
        // The content rules' profiles from the persistent cache where the files are unchanged:
        // a second lint of an unchanged store reads no body.
        let profiles = || {
            let (profiles, made) = folio_core::store::keep::cache::profiles::open(g.cache.as_ref(), store);
            for w in &made.warnings {
                eprintln!("folio: cache: {}", escape::line(w));
            }
            profiles
        };
        // The near-duplicate pairs and the model's own findings from the last pass when no
        // entity file changed since.
        let memo = folio_core::store::keep::cache::lint_memo::Memo::new(g.cache.as_ref(), store);
        let mut report = lint::lint_remembering(store, &config, &profiles, &memo);
        memo.save();
        for w in memo.warnings() {
            eprintln!("folio: cache: {}", escape::line(&w));
        }
        report.filter(&wanted, min);
        report
    };
    let mut report = run_lint(&store);
    if a.dry_run {
        print_fixes(&store, &report)?;
        return Ok(if report.has_errors() { super::EXIT_FINDING } else { 0 });
    }
    if a.fix {
        let outcome = lint::apply::apply_fixes(&store, &report, &actor, &flags.options()).map_err(report_write)?;
        for f in &outcome.files {
            eprintln!("fixed {}", escape::line(f));
        }
        eprintln!(
            "{} findings fixed in {} files{}",
            outcome.fixed,
            outcome.files.len(),
            if outcome.logs.is_empty() { String::new() } else { format!("; logged to {}", outcome.logs.join(", ")) }
        );
        // Report what is left, from the store as it now is.
        store = super::common::one_shot(Store::load(&store.root, store.kind(), store.detected_by.clone()));
        report = run_lint(&store);
    }
    {
        match a.format {
            Format::Text => print_text(&report, colour_wanted(), a.show_ignored),
            Format::Json => super::lint_json::print(&store, &report),
            Format::Sarif => print_json(&lint::export::sarif(&store, &report)),
        }
    }
    if a.log {
        let subject = if wanted.is_empty() && min == Severity::Info { "full-pass" } else { "filtered-pass" };
        let applied =
            lint::apply::log_pass(&store, &report, subject, &actor, &flags.options()).map_err(report_write)?;
        eprintln!("lint pass logged to {}", escape::line(&applied.log));
    }
    Ok(if report.has_errors() { super::EXIT_FINDING } else { 0 })
}

/// `--ignore RULE --entity ID --reason TEXT` / `--unignore RULE --entity ID`.
fn change_ignore(store: &Store, a: &Args, actor: &str, flags: &WriteFlags) -> anyhow::Result<u8> {
    let entity = a.entity.as_deref().unwrap_or_default();
    let applied = if let Some(rule) = &a.ignore {
        let rule = known_rule(rule)?;
        let Some(idx) = store.find(entity).filter(|&i| store.entity(i).id == entity || store.entity(i).path == entity)
        else {
            bail!("no entity `{}` in {}", escape::line(entity), store.root.display());
        };
        let reason = a.reason.as_deref().unwrap_or_default();
        lint::ignore::add(store, rule, idx, reason, actor, &flags.options()).map_err(report_write)?
    } else {
        let rule = known_rule(a.unignore.as_deref().unwrap_or_default())?;
        // A stale entry names an id that is gone: match the id as written.
        let id = store.find(entity).map(|i| store.entity(i).id.clone()).unwrap_or_else(|| entity.to_string());
        lint::ignore::remove(store, rule, &id, actor, &flags.options()).map_err(report_write)?
    };
    let verb = if a.ignore.is_some() { "ignored" } else { "no longer ignoring" };
    let rule = a.ignore.as_deref().or(a.unignore.as_deref()).unwrap_or_default();
    eprintln!(
        "{verb} {} on {} ({}; logged to {})",
        escape::line(rule),
        escape::line(entity),
        escape::line(&applied.files.join(", ")),
        escape::line(&applied.log)
    );
    Ok(0)
}

fn known_rule(id: &str) -> anyhow::Result<&'static str> {
    match rules::lookup(id) {
        Some(r) => Ok(r.id),
        None => bail!("unknown lint rule `{}` (known: {})", escape::line(id), rules::id_list()),
    }
}

fn explain(id: &str) -> anyhow::Result<u8> {
    let rule = rules::lookup(known_rule(id)?).context("rule vanished")?;
    let fixable = if rule.fixable { ", fixable" } else { "" };
    println!("{} ({}{fixable}): {}", rule.id, rule.severity.name(), rule.explain);
    Ok(0)
}

/// Colour only on a terminal, and never when NO_COLOR is set to anything non-empty.
pub(super) fn colour_wanted() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
}

/// `path:line:col: severity rule-id: message`, a blank line between files, then a summary;
/// with `show_ignored`, the ignored findings and their reasons after it.
fn print_text(report: &Report, colour: bool, show_ignored: bool) {
    let mut last: Option<Option<&str>> = None;
    for f in &report.findings {
        let path = f.path.as_deref();
        if last.is_some_and(|p| p != path) {
            println!();
        }
        last = Some(path);
        println!("{}", text_line(f, colour));
    }
    if !report.findings.is_empty() {
        println!();
    }
    println!("{}", summary_line(report));
    if show_ignored && !report.suppressed.is_empty() {
        println!();
        println!("{} ignored:", report.suppressed.len());
        for s in &report.suppressed {
            println!("{} (ignored: {})", text_line(&s.finding, false), escape::line(&s.reason));
        }
    }
}

fn text_line(f: &Finding, colour: bool) -> String {
    let path = escape::line(f.path.as_deref().unwrap_or("."));
    let sev = f.severity.name();
    let sev = if colour {
        let code = match f.severity {
            Severity::Error => "31",
            Severity::Warn => "33",
            Severity::Info => "36",
        };
        format!("\x1b[1;{code}m{sev}\x1b[0m")
    } else {
        sev.to_string()
    };
    let path = if colour { format!("\x1b[1m{path}\x1b[0m") } else { path.into_owned() };
    format!("{path}:{}:{}: {sev} {}: {}", f.line, f.col, f.rule, escape::line(&f.message))
}

fn summary_line(report: &Report) -> String {
    let s = report.summary();
    if report.findings.is_empty() {
        return format!("no findings{}", ignored_note(report));
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let mut line = format!(
        "{}, {}, {} in {}",
        plural(s.errors, "error"),
        plural(s.warnings, "warning"),
        plural(s.infos, "info"),
        plural(s.files, "file")
    );
    if s.fixable > 0 {
        line += &format!(" ({} fixable)", s.fixable);
    }
    line + &ignored_note(report)
}

/// `; N ignored`, pointing at the flag that lists them.
fn ignored_note(report: &Report) -> String {
    match report.suppressed.len() {
        0 => String::new(),
        n => format!("; {n} ignored (--show-ignored lists them)"),
    }
}

/// The unified diff of every safe fix, per file, computed against the file as it is now.
fn print_fixes(store: &Store, report: &Report) -> anyhow::Result<()> {
    let fixes = report.fixes();
    for f in &fixes {
        let current = fix::OnDisk::of(store, &f.path).with_context(|| format!("{}: cannot read", f.path))?;
        let new = f.apply(current.as_ref())?;
        let old = String::from_utf8_lossy(current.as_ref().map(|d| d.bytes.as_slice()).unwrap_or_default());
        let diff = fix::unified_diff(&f.path, &old, &String::from_utf8_lossy(&new));
        print!("{}", escape::text(&diff));
    }
    println!("{} fixes in {} files; nothing written (--dry-run)", report.summary().fixable, fixes.len());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(path: Option<&str>, severity: Severity, message: &str) -> Finding {
        Finding {
            rule: "broken-link",
            severity,
            entity: None,
            path: path.map(Into::into),
            line: 3,
            col: 7,
            message: message.into(),
            fix: None,
            origin: lint::Origin::Link,
            other: None,
        }
    }

    #[test]
    fn text_lines_escape_store_content_and_colour_only_when_asked() {
        let f = finding(Some("a\x1b[2J.md"), Severity::Error, "`x\u{202e}` does not resolve");
        assert_eq!(text_line(&f, false), "a\\u{1b}[2J.md:3:7: error broken-link: `x\\u{202e}` does not resolve");
        assert!(text_line(&f, true).contains("\x1b[1;31merror\x1b[0m"));
        assert_eq!(text_line(&finding(None, Severity::Info, "m"), false), ".:3:7: info broken-link: m");
    }

    #[test]
    fn summary_counts_each_severity() {
        let r = Report {
            findings: vec![
                finding(Some("a.md"), Severity::Error, "m"),
                finding(Some("a.md"), Severity::Warn, "m"),
                finding(Some("b.md"), Severity::Warn, "m"),
            ],
            suppressed: vec![],
        };
        assert_eq!(summary_line(&r), "1 error, 2 warnings, 0 infos in 2 files");
        assert_eq!(summary_line(&Report::default()), "no findings");
        let ignored = lint::Suppressed { finding: finding(Some("c.md"), Severity::Warn, "m"), reason: "r".into() };
        let r = Report { findings: vec![], suppressed: vec![ignored] };
        assert_eq!(summary_line(&r), "no findings; 1 ignored (--show-ignored lists them)");
    }
}
