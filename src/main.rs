fn main() -> std::process::ExitCode {
    // A closed pipe (`folio review list | head`) ends folio quietly, as it ends `cat`, instead
    // of a panic on the next print: restore the default SIGPIPE action Rust's runtime ignores.
    #[cfg(unix)]
    // SAFETY: setting a signal's disposition to its default before any thread starts.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    folio::cli::run()
}
