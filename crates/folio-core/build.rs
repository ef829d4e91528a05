//! Rebuild when anything under the workspace's `demo/` changes. `include_dir!` only tells cargo
//! about the files that existed at the last build, so an added or removed demo file would
//! otherwise leave a stale demo in the binary.
fn main() {
    println!("cargo:rerun-if-changed=../../demo");
}
