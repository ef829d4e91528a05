//! Render costs that must stay small: a 5,000-line entity in the preview, and a frame with
//! 100,000 entities loaded.
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use folio::app::App;
use folio::app::config::{self, ColorChoice};
use folio::app::effects::Source;
use folio::app::event::Event;
use folio::markdown::{doc, highlight::Highlighter, layout};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

fn long_entity() -> String {
    let mut s = String::from("---\ntitle: Long\ntype: note\n---\n# Long\n\n");
    for i in 0..1000 {
        s.push_str(&format!("## Section {i}\n\nSome *text* with a [[link-{i}]] and `code`, long enough to wrap at eighty columns in the preview pane.\n\n- item\n"));
    }
    s
}

fn app_on(root: &std::path::Path) -> App {
    let mut settings = config::load(None, ColorChoice::Always, false, None);
    settings.config.watch = false;
    // The 100k store would be written to the user's cache dir.
    settings.config.cache = false;
    let mut app = App::new(Source { path: Some(root.to_path_buf()), ..Source::default() }, settings, true);
    app.handle(Event::Resize(120, 40));
    app.settle(Duration::from_secs(600));
    app
}

fn preview_of_a_5000_line_entity(c: &mut Criterion) {
    let text = long_entity();
    assert!(text.lines().count() >= 5000);
    let h = Highlighter::synchronous();
    c.bench_function("parse+layout 5000-line entity", |b| {
        b.iter(|| {
            let d = doc::parse(&text);
            layout::layout(&d, &layout::Options { width: 80, highlighter: &h, syntax_theme: "base16-ocean.dark" })
        })
    });
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("long.md"), &text).unwrap();
    let app = app_on(dir.path());
    c.bench_function("frame with a 5000-line entity open", |b| {
        b.iter(|| {
            let mut buf = Buffer::empty(Rect::new(0, 0, 120, 40));
            folio::ui::draw(&app.model, buf.area, &mut buf);
            buf
        })
    });
}

fn frame_with_100k_entities(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    for folder in 0..100 {
        let d = dir.path().join(format!("folder-{folder:03}"));
        std::fs::create_dir_all(&d).unwrap();
        for i in 0..1000 {
            std::fs::write(d.join(format!("e{i}.md")), format!("# Entity {folder}-{i}\n\nSee [[e{}]].\n", i + 1))
                .unwrap();
        }
    }
    let app = app_on(dir.path());
    assert_eq!(app.model.store.as_ref().unwrap().entities.len(), 100_000);
    c.bench_function("frame with 100k entities", |b| {
        b.iter(|| {
            let mut buf = Buffer::empty(Rect::new(0, 0, 120, 40));
            folio::ui::draw(&app.model, buf.area, &mut buf);
            buf
        })
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20);
    targets = preview_of_a_5000_line_entity, frame_with_100k_entities
}
criterion_main!(benches);
