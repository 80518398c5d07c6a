//! An interrupted command (SIGINT, SIGTERM, SIGHUP) stops at once, with the exit status of an
//! interrupt (130), whatever it was doing: a database transaction under way is never
//! committed (it rolls back whole), and the files it was writing are removed
//! (`files::remove_pending`). This holds also where the process was started with SIGINT
//! ignored, as a shell does for a job it puts in the background. A step that must not be cut
//! in half (a mail the server accepted and its journal entry) runs under `Deferred`: an
//! interrupt waits for it to end.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Once, RwLock, RwLockReadGuard};

/// The exit status of a process ended by SIGINT, as shells report it.
pub const INTERRUPTED: i32 = 130;

/// Read-locked by each step that must end whole while it runs (several at once at the web
/// counter); the interrupt write-locks it before it exits.
static WHOLE_STEP: RwLock<()> = RwLock::new(());

/// Set as soon as an interrupt arrives, before the handler waits for a whole step to end.
static ARRIVED: AtomicBool = AtomicBool::new(false);

/// Stops the process on SIGINT, SIGTERM or SIGHUP from now on. Idempotent.
pub fn stop_on_interrupt() {
    static HANDLER: Once = Once::new();
    HANDLER.call_once(|| {
        // Another handler set first (a test harness) keeps its own behaviour.
        let _ = ctrlc::set_handler(|| {
            ARRIVED.store(true, Ordering::SeqCst);
            let _whole = WHOLE_STEP.write().unwrap_or_else(|p| p.into_inner());
            crate::files::remove_pending();
            std::process::exit(INTERRUPTED);
        });
    });
}

/// Called when a command has ended. An interrupt that arrived while its last step was kept
/// whole ends the process (130), not the command's own status: the handler holds the lock
/// once that step let go, and exits.
pub fn settle() {
    if ARRIVED.load(Ordering::SeqCst) {
        loop {
            std::thread::park();
        }
    }
}

/// While it lives, an interrupt waits: the step it guards ends whole.
pub struct Deferred(#[expect(dead_code, reason = "held for its lock")] RwLockReadGuard<'static, ()>);

impl Deferred {
    pub fn start() -> Deferred {
        Deferred(WHOLE_STEP.read().unwrap_or_else(|p| p.into_inner()))
    }
}
