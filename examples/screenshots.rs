//! Regenerate `screenshots/*.svg` from the real render of the demo store.
fn main() -> std::io::Result<()> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("screenshots");
    std::fs::create_dir_all(&dir)?;
    for (name, svg) in folio::tui::screenshots::render_all() {
        std::fs::write(dir.join(name), svg)?;
        println!("wrote screenshots/{name}");
    }
    Ok(())
}
