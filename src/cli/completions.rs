//! `folio completions SHELL` and `folio man [--dir DIR]`: the shell completion scripts and the
//! roff manual pages, both generated from the clap definitions every other command parses with,
//! so they name exactly the subcommands and options this build has.
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::CommandFactory;

#[derive(clap::Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to write the completion script for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: clap_complete::Shell,
}

#[derive(clap::Args, Debug)]
pub struct ManArgs {
    /// Write one page per command into DIR (folio.1, folio-lint.1, folio-review-approve.1, …)
    /// instead of printing folio.1; the folder is made if it is missing.
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
}

/// Print the completion script for `a.shell` to stdout.
pub fn run_completions(a: CompletionsArgs) -> anyhow::Result<u8> {
    let mut cmd = super::Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(a.shell, &mut cmd, "folio", &mut script);
    print_bytes(&script)?;
    Ok(0)
}

/// Print folio's top-level man page to stdout, or write every command's page into `--dir`.
pub fn run_man(a: ManArgs) -> anyhow::Result<u8> {
    let cmd = super::Cli::command();
    let Some(dir) = a.dir else {
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut page).context("cannot render the man page")?;
        print_bytes(&page)?;
        return Ok(0);
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut cmd = cmd.disable_help_subcommand(true);
    cmd.build();
    let mut written = Vec::new();
    write_pages(&cmd, &dir, &mut written)?;
    let list: String = written.iter().map(|p| format!("{}\n", p.display())).collect();
    print_bytes(super::escape::text(&list).as_bytes())?;
    Ok(0)
}

/// The page of `cmd` and, before it, those of its visible subcommands, each into `dir`.
fn write_pages(cmd: &clap::Command, dir: &Path, written: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        write_pages(sub, dir, written)?;
    }
    // A subcommand has no version of its own; the footer names folio's.
    let man = clap_mangen::Man::new(cmd.clone()).source(format!("folio {}", env!("CARGO_PKG_VERSION")));
    let path = dir.join(man.get_filename());
    let mut page = Vec::new();
    man.render(&mut page).context("cannot render a man page")?;
    std::fs::write(&path, page).with_context(|| format!("cannot write {}", path.display()))?;
    written.push(path);
    Ok(())
}

/// Write to stdout; a reader that went away (`folio man | head`) is not an error.
fn print_bytes(bytes: &[u8]) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match out.write_all(bytes).and_then(|()| out.flush()) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e).context("cannot write to stdout"),
        _ => Ok(()),
    }
}
