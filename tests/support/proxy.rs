//! A TCP proxy in front of the test PostgreSQL that cuts a connection the way a failover
//! does, at a statement that commits (one outside a transaction block is its own COMMIT):
//! either before the server has it (nothing committed) or after the server committed, before
//! its answer reaches the client (committed, and the client cannot know).

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

/// Where the connection is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// The statement never reaches the server.
    BeforeCommit,
    /// The server runs and commits it; its answer never reaches the client.
    AfterCommit,
}

pub struct Proxy {
    pub port: u16,
    /// Whether a connection was cut.
    cut_done: Arc<AtomicBool>,
}

impl Proxy {
    /// Listens on `port` (0: any free port) and forwards to `target` (host:port); the first
    /// statement that contains `cut_at` is cut as `cut` says. Everything else passes.
    pub fn start(port: u16, target: String, cut_at: Option<(&'static str, Cut)>) -> Proxy {
        let listener = TcpListener::bind(("127.0.0.1", port)).expect("bind the proxy port");
        Proxy::serve(listener, target, cut_at)
    }

    /// The same on a listener bound already (a test that first answered on it otherwise).
    pub fn serve(listener: TcpListener, target: String, cut_at: Option<(&'static str, Cut)>) -> Proxy {
        let port = listener.local_addr().unwrap().port();
        let cut_done = Arc::new(AtomicBool::new(false));
        let done = cut_done.clone();
        thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                let Ok(server) = TcpStream::connect(&target) else { continue };
                let done = done.clone();
                thread::spawn(move || pump_pair(client, server, cut_at, done));
            }
        });
        Proxy { port, cut_done }
    }

    pub fn has_cut(&self) -> bool {
        self.cut_done.load(Ordering::SeqCst)
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Relays both ways; at the statement, cuts as asked.
fn pump_pair(
    client: TcpStream,
    server: TcpStream,
    cut_at: Option<(&'static str, Cut)>,
    done: Arc<AtomicBool>,
) {
    // Set when the statement went to the server: its answer is then swallowed.
    let swallow = Arc::new(AtomicBool::new(false));
    let (mut from_server, mut to_client) = (server.try_clone().unwrap(), client.try_clone().unwrap());
    let swallowing = swallow.clone();
    let closing = (client.try_clone().unwrap(), server.try_clone().unwrap());
    thread::spawn(move || {
        let mut buffer = [0u8; 16384];
        loop {
            let n = match from_server.read(&mut buffer) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            if swallowing.load(Ordering::SeqCst) {
                let _ = closing.0.shutdown(Shutdown::Both);
                let _ = closing.1.shutdown(Shutdown::Both);
                break;
            }
            if to_client.write_all(&buffer[..n]).is_err() {
                break;
            }
        }
        let _ = to_client.shutdown(Shutdown::Both);
    });
    let (mut from_client, mut to_server) = (client, server);
    let mut buffer = [0u8; 16384];
    loop {
        let n = match from_client.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buffer[..n];
        if let Some((needle, cut)) = cut_at {
            if contains(chunk, needle.as_bytes()) && !done.swap(true, Ordering::SeqCst) {
                match cut {
                    Cut::BeforeCommit => {
                        let _ = from_client.shutdown(Shutdown::Both);
                        let _ = to_server.shutdown(Shutdown::Both);
                        return;
                    }
                    Cut::AfterCommit => swallow.store(true, Ordering::SeqCst),
                }
            }
        }
        if to_server.write_all(chunk).is_err() {
            break;
        }
    }
    let _ = to_server.shutdown(Shutdown::Both);
}
