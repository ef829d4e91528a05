fn main() -> std::process::ExitCode {
    // A closed pipe (`folio review list | head`) ends folio quietly, as it ends `cat`, instead
    // of a panic on the next print: restore the default SIGPIPE action Rust's runtime ignores.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to its default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // glibc grows each thread's heap a page at a time, one `mprotect` per step: loading 100k
    // entities made 27,800 of those calls, 4 % of all samples (strace -c, perf). A 32 MB
    // step makes a few dozen and cut the warm load by 3-5 %; the pages count in the RSS only
    // once touched, but freed memory up to the step stays mapped (peak RSS at 100k:
    // 184 MB -> 191 MB, interleaved runs, `d14bade`).
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: a malloc parameter set before any thread starts.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 32 << 20);
    }
    folio::cli::run()
}
