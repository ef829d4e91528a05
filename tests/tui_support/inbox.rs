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
