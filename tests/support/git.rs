//! Real git for test setup: every command with no global or system config, HOME in the
//! repository, a fixed author and date, and none of the caller's GIT_* variables.
use std::path::Path;
use std::process::Command;

pub fn available() -> bool {
    Command::new("git").arg("--version").output().is_ok_and(|o| o.status.success())
}

/// git in `dir`, untouched by the caller's configuration and environment.
pub fn command(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new("git");
    c.args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE");
    c
}

/// `command` as `who` at `date` (author and committer alike).
pub fn command_as(dir: &Path, who: &str, date: &str, args: &[&str]) -> Command {
    let email = format!("{}@example.com", who.to_lowercase().replace(' ', "."));
    let mut c = command(dir, args);
    c.env("GIT_AUTHOR_NAME", who)
        .env("GIT_AUTHOR_EMAIL", &email)
        .env("GIT_COMMITTER_NAME", who)
        .env("GIT_COMMITTER_EMAIL", &email)
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date);
    c
}

/// Run a git command that must succeed; its stdout.
pub fn stdout(mut c: Command, args: &[&str]) -> String {
    let o = c.output().expect("git runs");
    assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Run git in `dir` as `who` at `date`; its stdout.
pub fn run_as(dir: &Path, who: &str, date: &str, args: &[&str]) -> String {
    stdout(command_as(dir, who, date, args), args)
}

/// Run git in `dir` (it must succeed); its stdout.
pub fn run(dir: &Path, args: &[&str]) -> String {
    stdout(command(dir, args), args)
}

/// `git blame --porcelain`: the commit of each final line, in order.
pub fn blame_commits(repo: &Path, file: &str) -> Vec<String> {
    let mut by_line = std::collections::BTreeMap::new();
    for l in run(repo, &["blame", "--porcelain", "--", file]).lines() {
        let mut parts = l.split(' ');
        let (Some(sha), Some(_), Some(fin)) = (parts.next(), parts.next(), parts.next()) else { continue };
        if sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            by_line.insert(fin.parse::<usize>().unwrap(), sha.to_string());
        }
    }
    by_line.into_values().collect()
}
