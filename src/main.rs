use std::process::ExitCode;

fn main() -> ExitCode {
    if let Err(e) = dotenvy::dotenv() {
        if !e.not_found() {
            eprintln!("warning: ignoring the .env file: {e}");
        }
    }
    let cli = match receipts::cli::parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    match receipts::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // Output piped into `head` and cut short is not a failure.
        Err(err) if receipts::cli::is_broken_pipe(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("error: {err:#}");
            receipts::error::exit_code_of(&err)
        }
    }
}
