//! Choosing one store among several side by side in the opened folder (a folder of OKF
//! bundles): the catalog lists them until one is opened, as `--bundle NAME` would.
use crate::app::action::Action;
use crate::app::jobs::Job;
use crate::app::model::{Model, StoreChoice};

/// The folder holds several stores: list them to choose from.
pub fn offer(model: &mut Model, what: String, names: Vec<String>) -> Vec<Job> {
    model.store_choice = Some(StoreChoice { what, names, selected: 0 });
    Vec::new()
}

/// While the choice is shown, every action is answered here: move, open, or quit.
pub fn handle(model: &mut Model, a: Action) -> Vec<Job> {
    let Some(choice) = model.store_choice.as_mut() else { return Vec::new() };
    let last = choice.names.len().saturating_sub(1);
    match a {
        Action::Down => choice.selected = (choice.selected + 1).min(last),
        Action::Up => choice.selected = choice.selected.saturating_sub(1),
        Action::Top => choice.selected = 0,
        Action::Bottom => choice.selected = last,
        Action::Open | Action::Expand | Action::Confirm => {
            let name = choice.names[choice.selected].clone();
            model.store_choice = None;
            model.source_label = format!("{} ({name})", model.source_label);
            return vec![Job::LoadBundle(model.progress.clone(), model.config.cache, name)];
        }
        Action::Quit | Action::Close => model.quit = true,
        Action::Suspend => return vec![Job::Suspend],
        _ => {}
    }
    Vec::new()
}
