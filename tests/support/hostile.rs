//! The hostile corpus: a store written by a prompt-injected agent, generated in a temp dir (no
//! committed binaries). Used by tests/store/hostile.rs (every CLI command), tests/tui/tui_hostile.rs (the
//! TUI on a pty) and benches/tui_pty.rs (through `#[path]`, so it needs nothing else in tests/).
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::process::Command;

fn write(root: &Path, rel: &str, text: impl AsRef<[u8]>) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// Text that lives only outside the store: seeing it in any output means folio read it.
pub const SECRET: &str = "OUTSIDE-SECRET-7f3a";

/// Escape sequences agents could plant: clear screen, set title, OSC 52 clipboard write,
/// OSC 8 hyperlink, DCS, CSI via C1.
pub const ESCAPES: &str = "\x1b[2J\x1b[H\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b]8;;https://evil.example/\x1b\\click\x1b]8;;\x1b\\\x1bP+q544e\x1b\\\u{9b}31m";
pub const BIDI_AND_ZERO_WIDTH: &str =
    "admin\u{202e}txt.exe\u{202c} \u{2066}iso\u{2069} zero\u{200b}\u{200d}\u{2060}\u{feff}width";

fn c0_and_c1() -> String {
    let c0: String = (0u8..0x20).filter(|b| !matches!(b, b'\t' | b'\n' | 0)).map(char::from).collect();
    let c1: String = (0x80u32..0xa0).filter_map(char::from_u32).collect();
    format!("{c0}\u{7f}{c1}")
}

fn nested(prefix: impl Fn(usize) -> String, depth: usize) -> String {
    (0..depth).map(|d| format!("{}item {d}\n", prefix(d))).collect()
}

/// Every hostile file, by relative path.
pub fn hostile_files() -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut add = |rel: &str, bytes: Vec<u8>| files.push((rel.to_string(), bytes));
    let note = |title: &str, body: &str| {
        format!("---\ntype: Note\ntitle: {title}\ndescription: d\n---\n{body}\n").into_bytes()
    };
    // The catalog links to every hostile entity so they are not orphans and links get resolved.
    add("index.md", b"* [Escapes](escapes.md) - \x1b]0;index title\x07\n* [Controls](controls.md) - c\n".to_vec());
    add(
        "escapes.md",
        format!(
            "---\ntype: \"Note{e}\"\ntitle: \"{t}\"\ndescription: \"{t}\"\ntags: [\"{t}\", plain]\naliases: [\"{t}\"]\n\"key{t}\": v\n---\n# Heading {e}\n\nBody {e} and [link {e}](target{e}.md) and [[wiki{e}]].\n",
            e = ESCAPES,
            t = ESCAPES.replace('\\', "\\\\").replace('"', "\\\"").replace('\x1b', "\\e").replace('\x07', "\\a"),
        )
        .into_bytes(),
    );
    add("escapes-raw.md", note("raw", &format!("title line\n\n{ESCAPES}\n\n[x{ESCAPES}](y{ESCAPES}.md)")));
    let controls = c0_and_c1();
    add("controls.md", note("Controls", &format!("before {controls} after")));
    add(
        "bidi.md",
        note(
            &format!("\"{BIDI_AND_ZERO_WIDTH}\""),
            &format!("{BIDI_AND_ZERO_WIDTH}\n[{BIDI_AND_ZERO_WIDTH}](bidi.md)"),
        ),
    );
    let long = "a".repeat(10 * 1024 * 1024);
    add("long-line.md", note("Long", &long));
    add("nested-lists.md", note("Lists", &nested(|d| format!("{}- ", "  ".repeat(d)), 1000)));
    add("nested-quotes.md", note("Quotes", &nested(|d| format!("{} ", ">".repeat(d + 1)), 1000)));
    add("nested-brackets.md", note("Brackets", &format!("{}x{}", "[".repeat(5000), "](a.md)".repeat(5000))));
    let wide_row = format!("|{}\n", "x|".repeat(5000));
    let table = format!("{wide_row}|{}\n{}", "-|".repeat(5000), wide_row.repeat(200));
    add("table.md", note("Table", &format!("{table}\n{}", "|\n".repeat(50_000))));
    let many_keys: String = (0..100_000).map(|i| format!("k{i}: value {i}\n")).collect();
    add("huge-frontmatter.md", format!("---\ntype: Note\ntitle: Huge\n{many_keys}---\nbody\n").into_bytes());
    let laughs = "---\ntype: Note\ntitle: Laughs\na: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\ntags: *i\n---\nbody\n";
    add("billion-laughs.md", laughs.as_bytes().to_vec());
    let deep_flow =
        format!("---\ntype: Note\ntitle: Deep\ndeep: {}{}\n---\nbody\n", "[".repeat(100_000), "]".repeat(100_000));
    add("deep-flow.md", deep_flow.into_bytes());
    let deep_block: String = (0..2000).map(|d| format!("{}k{d}:\n", " ".repeat(d))).collect();
    add("deep-block.md", format!("---\ntype: Note\ntitle: DeepBlock\n{deep_block}---\nbody\n").into_bytes());
    let anchors: String = (1..2000).map(|i| format!("a{i}: &x{i} [*x{}, *x{}]\n", i - 1, i - 1)).collect();
    add("deep-anchors.md", format!("---\ntype: Note\ntitle: Anchors\na0: &x0 [x]\n{anchors}---\nbody\n").into_bytes());
    // Invalid UTF-8 in the key, the title, the description, a tag, the body and a link target.
    add(
        "bad-utf8.md",
        b"---\ntype: No\xfete\nti\xfftle: T\xc3\nDescription: \xe2\x82\ntitle: caf\xe9\ndescription: \xed\xa0\x80surrogate\ntags: [a\x80b]\n---\nBody \xf8\x88\x80\x80\x80 and [l\xc0\xafnk](ta\xffrget.md)\n".to_vec(),
    );
    add(
        "links-out.md",
        note(
            "Links out",
            "[up](../../../../etc/passwd) [up2](../outside/secret.md) [abs](/etc/passwd) [file](file:///etc/passwd) \
             [[../outside/secret]] [[/etc/passwd]] [enc](%2e%2e/%2e%2e/outside/secret.md) [nul](a%00b.md)",
        ),
    );
    // NUL bytes past the binary-detection probe: the file is parsed as text.
    let mut late_nul = note("Late NUL", &"x".repeat(9000));
    late_nul.extend_from_slice(b"\0\0 after nul [n](n\0ul.md)\n");
    add("late-nul.md", late_nul);
    add("early-nul.md", b"---\ntype: Note\0\ntitle: NUL\n---\n".to_vec());
    // Hostile file names: a newline, an escape sequence, a bidi override.
    add("new\nline.md", note("Newline name", "x"));
    add("esc\x1b]0;name\x07\x1b[31m.md", note("Escape name", "x"));
    add("bidi\u{202e}dm.md", note("Bidi name", "x"));
    add("sub/deep/linker.md", note("Linker", "[nl](../../new%0Aline.md) [[esc\x1b[31m]]"));
    files
}

pub struct Hostile {
    /// Keeps the corpus alive; removed on drop.
    pub tmp: tempfile::TempDir,
    pub base: PathBuf,
    pub root: PathBuf,
    pub outside: PathBuf,
}

/// The files that make every load slow (megabytes each); `show` runs on a store without them
/// for every other entity, to keep the test within CI time.
pub const HEAVY: [&str; 8] = [
    "long-line.md",
    "nested-lists.md",
    "nested-quotes.md",
    "nested-brackets.md",
    "table.md",
    "huge-frontmatter.md",
    "deep-anchors.md",
    "deep-block.md",
];

pub fn build() -> Hostile {
    build_with(|_| true)
}

pub fn build_light() -> Hostile {
    build_with(|rel| !HEAVY.contains(&rel))
}

pub fn build_with(keep: impl Fn(&str) -> bool) -> Hostile {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().to_path_buf();
    let root = base.join("store");
    let outside = base.join("outside");
    write(&outside, "secret.md", format!("---\ntype: Note\ntitle: {SECRET}\n---\n{SECRET}\n"));
    write(&outside, "dir/inner.md", format!("# {SECRET}\n"));
    for (rel, bytes) in hostile_files().into_iter().filter(|(rel, _)| keep(rel)) {
        write(&root, &rel, bytes);
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        use std::os::unix::fs::symlink;
        symlink(outside.join("secret.md"), root.join("abs-link.md")).unwrap();
        symlink("../outside/secret.md", root.join("rel-link.md")).unwrap();
        symlink("../outside/dir", root.join("dir-link")).unwrap();
        symlink("/dev/zero", root.join("zero.md")).unwrap();
        symlink("loop-b.md", root.join("loop-a.md")).unwrap();
        symlink("loop-a.md", root.join("loop-b.md")).unwrap();
        symlink(".", root.join("self-loop")).unwrap();
        symlink("..", root.join("parent-loop")).unwrap();
        symlink("index.md", root.join("inside-link.md")).unwrap();
        // A file name that is not UTF-8 at all.
        std::fs::write(root.join(std::ffi::OsStr::from_bytes(b"latin\xe9.md")), "# latin name\n").unwrap();
        // A FIFO: reading it blocks forever, so folio must not open it.
        let fifo = root.join("pipe.md");
        let status = Command::new("mkfifo").arg(&fifo).status();
        assert!(status.map(|s| s.success()).unwrap_or(false), "mkfifo is needed for the FIFO case");
        let outside_fifo = outside.join("pipe.md");
        Command::new("mkfifo").arg(&outside_fifo).status().unwrap();
        symlink(&outside_fifo, root.join("out-pipe.md")).unwrap();
    }
    Hostile { tmp, base, root, outside }
}
