//! The review inbox driven through the app: open it, read the queue, select an item.
use std::path::Path;

use folio::app::App;

use super::{app_on, press};

/// An app on `root` with the review inbox open and loaded, deciding as `human:tester`.
pub fn open(root: &Path, size: (u16, u16)) -> App {
    let mut app = app_on(root, "dark", size);
    app.model.review.actor = "human:tester".into();
    press(&mut app, &["R"]);
    assert!(app.model.review.open && app.model.review.loaded);
    app
}

/// The id of the selected queue item ("" when the queue is empty).
pub fn selected(app: &App) -> String {
    app.model.review.selected().map(|i| i.id.clone()).unwrap_or_default()
}

/// Every queued id, in queue order.
pub fn queued(app: &App) -> Vec<String> {
    app.model.review.items.iter().map(|i| i.id.clone()).collect()
}

/// Select the queue item with this id.
pub fn go_to(app: &mut App, id: &str) {
    press(app, &["g", "g"]);
    for _ in 0..app.model.review.items.len() {
        if selected(app) == id {
            return;
        }
        press(app, &["j"]);
    }
    panic!("{id} is not in the queue: {:?}", queued(app));
}

/// The inbox as drawn with what depends on today masked (ages, today's date, the reviewer's
/// clock), so snapshots stay put whenever they run.
pub fn masked(s: &str) -> String {
    // Today's date, as the log entry the dialog previews is headed.
    let today = folio::store::model::timestamp::now().date().to_string();
    let s = s.replace(&today, "DDDD-DD-DD");
    let mut out = String::new();
    for line in s.lines() {
        match line.find("age         ") {
            Some(i) => {
                let end = line[i..].find(" days").map(|e| i + e + 5).unwrap_or(line.len());
                out.push_str(&line[..i + 12]);
                out.push_str(&"N".repeat(end - i - 17));
                out.push_str(" days");
                out.push_str(&line[end..]);
            }
            // The reviewer's clock: `at: "2026-…Z"` beside `human:tester`.
            None => match line.find("human:tester\", at: \"") {
                Some(i) => {
                    let start = i + "human:tester\", at: \"".len();
                    let len = line[start..].find('"').unwrap_or(0);
                    out.push_str(&line[..start]);
                    out.push_str(&"T".repeat(len));
                    out.push_str(&line[start + len..]);
                }
                None => out.push_str(line),
            },
        }
        out.push('\n');
    }
    out
}
