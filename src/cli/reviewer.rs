//! Who makes a change when `--as` is not given: `human:$USER`; with `$USER` unset (or empty)
//! the reviewer remembered in the user's folio config dir (`reviewer`, shared with the TUI);
//! with none remembered, folio asks once on the terminal and remembers the answer there —
//! never in the store. Without a terminal to ask on, `human:unknown`, with a warning.
use std::io::{BufRead, IsTerminal, Write};

use folio_tui::app::settings::{config, reviewer};

pub fn actor() -> String {
    let user = std::env::var("USER").ok().filter(|u| !u.is_empty());
    if let Some(user) = user.or_else(|| std::env::var("USERNAME").ok().filter(|u| !u.is_empty())) {
        return format!("human:{user}");
    }
    let file = config::config_dir().map(|d| reviewer::file(&d));
    if let Some(known) = file.as_deref().and_then(reviewer::load) {
        return known;
    }
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        for _ in 0..3 {
            eprint!("folio: who is reviewing? (a name, or KIND:ID) ");
            let _ = std::io::stderr().flush();
            let mut answer = String::new();
            if std::io::stdin().lock().read_line(&mut answer).unwrap_or(0) == 0 {
                break;
            }
            let Some(actor) = reviewer::actor_from(&answer) else {
                eprintln!("folio: one word without spaces, e.g. ann or human:ann");
                continue;
            };
            match file.as_deref().map(|f| reviewer::save(f, &actor)) {
                Some(Err(e)) => eprintln!("folio: {e}"),
                Some(Ok(())) => eprintln!("folio: remembered as {actor} (in {})", file.as_ref().unwrap().display()),
                None => {}
            }
            return actor;
        }
    }
    eprintln!("folio: $USER is unset and no reviewer is remembered: recorded as {} (give --as)", reviewer::UNKNOWN);
    reviewer::UNKNOWN.to_string()
}
