//! The `receipts` program: the command line runs, and its exit code says how it ended.

use std::process::ExitCode;

fn main() -> ExitCode {
    if let Err(e) = dotenvy::dotenv() {
        if !e.not_found() {
            eprintln!("warning: ignoring the .env file: {e}");
        }
    }
    // The shop's configuration fills in what neither the flags nor the environment say.
    let args: Vec<_> = std::env::args_os().collect();
    if let Err(err) = receipts::config::load(&args) {
        return report(err.into());
    }
    let cli = match receipts::cli::parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    match receipts::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // Output piped into `head` and cut short is not a failure.
        Err(err) if receipts::cli::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => report(err),
    }
}

/// Says why the command failed, on one line whatever a message carries (a typed name with a
/// line break in it), and gives its exit code.
fn report(err: anyhow::Error) -> ExitCode {
    let message = format!("{err:#}");
    let line: Vec<&str> = message.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    eprintln!("error: {}", line.join(" "));
    receipts::error::exit_code_of(&err)
}
