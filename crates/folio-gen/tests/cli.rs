//! The `folio-gen` binary: its arguments reach the generator and its report is what it wrote.
use std::process::Command;

#[test]
fn folio_gen_writes_the_store_it_reports() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("okf");
    let o = Command::new(env!("CARGO_BIN_EXE_folio-gen"))
        .args(["--dialect", "okf", "--entities", "40", "--seed", "3", "--json", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["entities"], 40);
    assert_eq!(report["dialect"], "okf");
    let files = ignore::WalkBuilder::new(&out).hidden(false).build().flatten().filter(|e| e.path().is_file()).count();
    assert_eq!(report["files"], files as u64, "{report}");
}

#[test]
fn folio_gen_refuses_an_unknown_dialect() {
    let tmp = tempfile::tempdir().unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_folio-gen"))
        .args(["--dialect", "nope", "--entities", "1", "--out"])
        .arg(tmp.path().join("x"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("unknown dialect `nope`"));
}
