//! The README screenshots must match what folio renders now.
#[test]
fn screenshots_are_up_to_date() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("screenshots");
    for (name, svg) in folio::tui::screenshots::render_all() {
        let on_disk = std::fs::read_to_string(dir.join(name)).unwrap_or_default();
        assert!(
            on_disk == svg,
            "screenshots/{name} is out of date: run `cargo run --example screenshots` and commit the result"
        );
        assert!(svg.contains("Catalog"), "{name} shows the catalog");
    }
}
