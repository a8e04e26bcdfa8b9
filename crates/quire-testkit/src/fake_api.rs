//! A loopback fake of a web service's API for import tests: every request is handed to a
//! handler that checks it (method, path, headers, body) and answers a status and a JSON body,
//! as the real service would; every request is recorded.

use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

pub use crate::receiver::Received;

type Handler = dyn Fn(&Received) -> (u16, String) + Send + Sync;

/// A fake service listening on `127.0.0.1`; stops when dropped.
pub struct FakeApi {
    addr: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl FakeApi {
    /// On a free port, answering each request with `handler`'s status and body.
    pub fn start(handler: impl Fn(&Received) -> (u16, String) + Send + Sync + 'static) -> FakeApi {
        let listener = TcpListener::bind(("127.0.0.1", 0)).expect("a loopback port");
        let addr = listener.local_addr().expect("its address");
        let received = Arc::new(Mutex::new(Vec::new()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let thread = {
            let received = received.clone();
            let stop = stop.clone();
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        return;
                    }
                    if let Ok(stream) = stream {
                        let _ = serve(stream, &*handler, &received);
                    }
                }
            })
        };
        FakeApi {
            addr,
            received,
            stop,
            thread: Some(thread),
        }
    }

    /// `http://127.0.0.1:<port>`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far, with the status it got.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }
}

impl Drop for FakeApi {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn serve(stream: TcpStream, handler: &Handler, received: &Mutex<Vec<Received>>) -> io::Result<()> {
    let Some(mut request) = crate::receiver::read_request(&stream)? else {
        return Ok(());
    };
    let (status, answer) = handler(&request);
    request.status = status;
    received.lock().unwrap().push(request);
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status} Status\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{answer}",
        answer.len()
    )?;
    stream.flush()
}
