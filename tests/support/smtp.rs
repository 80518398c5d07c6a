//! A small SMTP server for the tests, on 127.0.0.1: it speaks real SMTP over TCP (EHLO,
//! AUTH PLAIN and LOGIN, MAIL, RCPT, DATA, QUIT) and keeps what it accepted, so tests read
//! exactly what a mail server would have received. It can require a login, refuse a
//! recipient, accept connections and never answer, or take a message and never confirm it.

use base64::Engine;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};

/// What the server does.
#[derive(Debug, Clone)]
pub enum Behaviour {
    Accept,
    /// Only after AUTH with these credentials.
    Login {
        user: String,
        password: String,
    },
    /// 550 for this recipient, 250 for the others.
    RefuseRecipient(String),
    /// Takes the connection, then says nothing at all.
    Silent,
    /// Answers everything, takes the message, then never says whether it accepted it.
    StallAfterData,
}

/// A message the server accepted.
#[derive(Debug, Clone)]
pub struct Received {
    pub from: String,
    pub to: Vec<String>,
    pub data: Vec<u8>,
}

pub struct Sink {
    pub addr: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Sink {
    pub fn start(behaviour: Behaviour) -> Sink {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port on loopback");
        let addr = listener.local_addr().unwrap();
        let received = Arc::new(Mutex::new(Vec::new()));
        let kept = Arc::clone(&received);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (behaviour, kept) = (behaviour.clone(), Arc::clone(&kept));
                std::thread::spawn(move || {
                    let _ = session(stream, &behaviour, &kept);
                });
            }
        });
        Sink { addr, received }
    }

    /// `smtp://127.0.0.1:PORT`, with `user:password@` when given.
    pub fn url(&self, login: Option<(&str, &str)>) -> String {
        match login {
            Some((user, password)) => format!("smtp://{user}:{password}@{}", self.addr),
            None => format!("smtp://{}", self.addr),
        }
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

fn session(stream: TcpStream, behaviour: &Behaviour, kept: &Mutex<Vec<Received>>) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    if let Behaviour::Silent = behaviour {
        // Hold the connection open and never answer, until the client gives up.
        let mut sink = Vec::new();
        let _ = std::io::Read::read_to_end(&mut reader, &mut sink);
        return Ok(());
    }
    let mut reply = |text: &str| out.write_all(format!("{text}\r\n").as_bytes());
    reply("220 sink.test ESMTP ready")?;
    let mut logged_in = !matches!(behaviour, Behaviour::Login { .. });
    let (mut from, mut to) = (String::new(), Vec::new());
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let command = line.trim_end().to_string();
        let upper = command.to_ascii_uppercase();
        if upper.starts_with("EHLO") || upper.starts_with("HELO") {
            reply("250-sink.test")?;
            reply("250-AUTH PLAIN LOGIN")?;
            reply("250 8BITMIME")?;
        } else if upper.starts_with("AUTH PLAIN") {
            let encoded = command.split_whitespace().nth(2).map(str::to_string);
            let encoded = match encoded {
                Some(e) => e,
                None => {
                    reply("334 ")?;
                    read_line(&mut reader)?
                }
            };
            let decoded = decode(&encoded);
            let parts: Vec<&str> = decoded.split('\0').collect();
            logged_in = check_login(behaviour, parts.get(1).copied(), parts.get(2).copied());
            reply(if logged_in {
                "235 2.7.0 Authentication successful"
            } else {
                "535 5.7.8 Authentication failed"
            })?;
        } else if upper.starts_with("AUTH LOGIN") {
            reply("334 VXNlcm5hbWU6")?;
            let user = decode(&read_line(&mut reader)?);
            reply("334 UGFzc3dvcmQ6")?;
            let password = decode(&read_line(&mut reader)?);
            logged_in = check_login(behaviour, Some(&user), Some(&password));
            reply(if logged_in {
                "235 2.7.0 Authentication successful"
            } else {
                "535 5.7.8 Authentication failed"
            })?;
        } else if upper.starts_with("MAIL FROM:") {
            if !logged_in {
                reply("530 5.7.0 Authentication required")?;
                continue;
            }
            from = address(&command);
            to.clear();
            reply("250 2.1.0 Ok")?;
        } else if upper.starts_with("RCPT TO:") {
            let recipient = address(&command);
            match behaviour {
                Behaviour::RefuseRecipient(refused) if *refused == recipient => {
                    reply("550 5.1.1 No such user here")?
                }
                _ => {
                    to.push(recipient);
                    reply("250 2.1.5 Ok")?
                }
            }
        } else if upper == "DATA" {
            reply("354 End data with <CR><LF>.<CR><LF>")?;
            let mut data = Vec::new();
            loop {
                let mut raw = Vec::new();
                if reader.read_until(b'\n', &mut raw)? == 0 {
                    return Ok(());
                }
                if raw == b".\r\n" || raw == b".\n" {
                    break;
                }
                // Dot-stuffing undone.
                data.extend_from_slice(if raw.starts_with(b"..") { &raw[1..] } else { &raw });
            }
            kept.lock().unwrap().push(Received { from: from.clone(), to: to.clone(), data });
            if let Behaviour::StallAfterData = behaviour {
                let mut rest = Vec::new();
                let _ = std::io::Read::read_to_end(&mut reader, &mut rest);
                return Ok(());
            }
            reply("250 2.0.0 Ok: queued")?;
        } else if upper == "QUIT" {
            reply("221 2.0.0 Bye")?;
            return Ok(());
        } else if upper == "RSET" || upper == "NOOP" {
            reply("250 2.0.0 Ok")?;
        } else {
            reply("502 5.5.2 Command not recognised")?;
        }
    }
}

fn read_line(reader: &mut BufReader<TcpStream>) -> std::io::Result<String> {
    let mut line = String::new();
    reader.read_line(&mut line)?;
    Ok(line.trim_end().to_string())
}

fn decode(text: &str) -> String {
    String::from_utf8_lossy(
        &base64::engine::general_purpose::STANDARD.decode(text.trim()).unwrap_or_default(),
    )
    .into_owned()
}

fn check_login(behaviour: &Behaviour, user: Option<&str>, password: Option<&str>) -> bool {
    match behaviour {
        Behaviour::Login { user: u, password: p } => user == Some(u.as_str()) && password == Some(p.as_str()),
        _ => true,
    }
}

/// The address in `MAIL FROM:<a@b>` or `RCPT TO:<a@b>`.
fn address(command: &str) -> String {
    command
        .split_once('<')
        .and_then(|(_, rest)| rest.split_once('>'))
        .map(|(a, _)| a.to_string())
        .unwrap_or_default()
}
