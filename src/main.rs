fn main() -> std::process::ExitCode {
    folio::cli::run()
}
