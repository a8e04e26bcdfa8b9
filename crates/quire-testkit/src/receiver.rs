//! A tiny HTTP receiver on loopback for webhook tests: it records every request (headers and
//! body) and answers each with the next scripted status (200 when none is left).

use std::collections::VecDeque;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// One request the receiver got.
#[derive(Debug, Clone)]
pub struct Received {
    pub method: String,
    pub target: String,
    /// Names in lower case, in the order sent.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The status it was answered with.
    pub status: u16,
}

impl Received {
    /// The first header called `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Default)]
struct Shared {
    script: VecDeque<u16>,
    received: Vec<Received>,
}

/// A receiver listening on `127.0.0.1`; stops when dropped.
pub struct Receiver {
    addr: SocketAddr,
    shared: Arc<(Mutex<Shared>, Condvar)>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Receiver {
    /// On a free port.
    pub fn start() -> Receiver {
        Receiver::on(0).expect("a loopback port to listen on")
    }

    /// On `port` (0: any free one), e.g. the port of a receiver that was down.
    pub fn on(port: u16) -> io::Result<Receiver> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let addr = listener.local_addr()?;
        let shared = Arc::new((Mutex::new(Shared::default()), Condvar::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let shared = shared.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                    if let Ok(stream) = stream {
                        let _ = serve(stream, &shared);
                    }
                }
            })
        };
        Ok(Receiver {
            addr,
            shared,
            stop,
            thread: Some(thread),
        })
    }

    /// A loopback port nobody listens on now (bound, then released).
    pub fn free_port() -> u16 {
        TcpListener::bind(("127.0.0.1", 0))
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port()
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:<port>/hook`.
    pub fn url(&self) -> String {
        format!("http://{}/hook", self.addr)
    }

    /// The statuses to answer the next requests with, in order.
    pub fn answer(&self, statuses: &[u16]) {
        let mut shared = self.shared.0.lock().unwrap();
        shared.script.extend(statuses.iter().copied());
    }

    pub fn received(&self) -> Vec<Received> {
        self.shared.0.lock().unwrap().received.clone()
    }

    /// Waits until `count` requests have come (or `timeout` passed) and returns them all.
    pub fn wait_for(&self, count: usize, timeout: Duration) -> Vec<Received> {
        let deadline = Instant::now() + timeout;
        let (lock, cond) = &*self.shared;
        let mut shared = lock.lock().unwrap();
        while shared.received.len() < count {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            shared = cond.wait_timeout(shared, left).unwrap().0;
        }
        shared.received.clone()
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop.
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(stream: TcpStream, shared: &(Mutex<Shared>, Condvar)) -> io::Result<()> {
    let Some(mut request) = read_request(&stream)? else {
        return Ok(());
    };
    let (lock, cond) = shared;
    let status = {
        let mut shared = lock.lock().unwrap();
        let status = shared.script.pop_front().unwrap_or(200);
        request.status = status;
        shared.received.push(request);
        status
    };
    cond.notify_all();
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status} Status\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )?;
    stream.flush()
}

/// Reads one HTTP/1.1 request from `stream` (a 5 s read timeout): its method, target, headers
/// and `Content-Length` body; `None` when the client sent nothing. `status` is left 0 for the
/// caller to set once it answers.
pub(crate) fn read_request(stream: &TcpStream) -> io::Result<Option<Received>> {
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let target = parts.next().unwrap_or_default().to_string();
    if method.is_empty() {
        return Ok(None);
    }
    let mut headers = Vec::new();
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 {
            break;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            let name = name.trim().to_ascii_lowercase();
            let value = value.trim().to_string();
            if name == "content-length" {
                length = value.parse().unwrap_or(0);
            }
            headers.push((name, value));
        }
    }
    let mut body = vec![0u8; length];
    reader.read_exact(&mut body)?;
    Ok(Some(Received {
        method,
        target,
        headers,
        body,
        status: 0,
    }))
}
