//! Snapshots of every view at 80×24 and 120×40 on real and tricky stores.
use crate::support;
use support::tui::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

fn snap(name: &str, app: &folio::app::App) {
    let (w, h) = app.model.size;
    insta::assert_snapshot!(format!("{name}_{w}x{h}"), text(&render(app)));
}

#[test]
fn browse_okf_store() {
    for size in SIZES {
        let mut app = app_on(&corpus("okf-v0.2/acme_retail"), "dark", size);
        snap("browse_start", &app);
        press(&mut app, &["j", "j", "j"]);
        snap("browse_metric", &app);
        press(&mut app, &["<Enter>", "<C-d>"]);
        snap("preview_scrolled", &app);
    }
}

#[test]
fn overlays() {
    for size in SIZES {
        let mut app = app_on(&corpus("okf-v0.2/acme_retail"), "dark", size);
        press(&mut app, &["?"]);
        snap("help", &app);
        type_text(&mut app, "yank");
        snap("help_filtered", &app);
        press(&mut app, &["<Esc>", ":"]);
        type_text(&mut app, "theme");
        snap("palette", &app);
        press(&mut app, &["<Esc>", "g"]);
        snap("which_key", &app);
        press(&mut app, &["<Esc>", "f"]);
        type_text(&mut app, "margin");
        snap("filter", &app);
    }
}

#[test]
fn tricky_content() {
    let (_dir, root) = tricky_vault();
    for size in SIZES {
        let mut app = app_on(&root, "dark", size);
        snap("tricky_start", &app);
        press(&mut app, &["j", "j"]);
        snap("tricky_alpha", &app);
    }
}

#[test]
fn too_small_and_unopenable() {
    let mut app = app_on(&corpus("okf-v0.2/acme_retail"), "dark", (40, 10));
    snap("too_small", &app);
    app.handle(folio::app::event::Event::Resize(80, 24));
    snap("after_resize", &app);
    // Under /proc no one can create it, and it does not follow TMPDIR (the snapshot shows it).
    let missing = std::path::Path::new("/proc/folio-no-such-store-here");
    let app = app_on(missing, "dark", (80, 24));
    snap("cannot_open", &app);
}

/// Colours matter here: the selected row, lint markers, broken links and escape sequences.
#[test]
fn styles_of_selection_and_lint() {
    let (_dir, root) = tricky_vault();
    let mut app = app_on(&root, "dark", (60, 14));
    press(&mut app, &["j", "j"]);
    insta::assert_debug_snapshot!("styles_dark_60x14", render(&app));
    let mut mono = app_on(&root, "mono", (60, 14));
    press(&mut mono, &["j", "j"]);
    insta::assert_debug_snapshot!("styles_mono_60x14", render(&mono));
}

/// Obsidian markdown as Obsidian users read it (callouts, embeds of a note's section and of a
/// base file, highlights, hidden comments, tasks, tags, block ids), wrapped properties and the
/// `K` overlay, at a small and a wide terminal (issue 23).
#[test]
fn obsidian_vault_reading_view() {
    let vault = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/obsidian-vault");
    for size in [(80, 24), (200, 50)] {
        let mut app = app_on(&vault, "dark", size);
        press(&mut app, &["j", "j", "<Enter>"]);
        snap("vault_hot_cache", &app);
        press(&mut app, &["<C-d>"]);
        snap("vault_hot_cache_scrolled", &app);
        press(&mut app, &["K"]);
        snap("vault_properties", &app);
    }
}
