fn main() -> std::process::ExitCode {
    // A closed pipe (`folio review list | head`) ends folio quietly, as it ends `cat`, instead
    // of a panic on the next print: restore the default SIGPIPE action Rust's runtime ignores.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to its default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    // A 32 MB heap-top pad: glibc otherwise grows each thread's heap one page at a time, an
    // `mprotect` each, a cost that shows in loading a large store. Pages count in the RSS only
    // once touched, but freed memory up to the pad stays mapped, a small price in peak memory
    // (docs/benchmarks.md, "Load figures").
    //
    // One malloc arena per core, not glibc's eight: the walker's and rayon's threads each
    // took an arena of their own, and what one freed (a multi-MB file's buffer, a thread's
    // batch) stayed in it — 9 % of the peak RSS of a full load at 100k, with the same CPU time
    // (docs/benchmarks.md, "Round: issue 44").
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get()) as libc::c_int;
        // SAFETY: malloc parameters set before any thread starts.
        unsafe {
            libc::mallopt(libc::M_TOP_PAD, 32 << 20);
            libc::mallopt(libc::M_ARENA_MAX, cores.max(1));
        }
    }
    folio::cli::run()
}
