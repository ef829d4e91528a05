//! Real git for test setup: every command with no global or system config, HOME in the
#![allow(dead_code)] // each test binary uses its own part
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

/// Run git in `dir` as `who` at `date` (author and committer alike); its stdout.
pub fn run_as(dir: &Path, who: &str, date: &str, args: &[&str]) -> String {
    let o = command(dir, args)
        .env("GIT_AUTHOR_NAME", who)
        .env("GIT_AUTHOR_EMAIL", format!("{}@example.com", who.to_lowercase().replace(' ', ".")))
        .env("GIT_COMMITTER_NAME", who)
        .env("GIT_COMMITTER_EMAIL", format!("{}@example.com", who.to_lowercase().replace(' ', ".")))
        .env("GIT_AUTHOR_DATE", date)
        .env("GIT_COMMITTER_DATE", date)
        .output()
        .expect("git runs");
    assert!(o.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}
