//! Request targets longer than the `http` crate can hold get the API's JSON error.
//!
//! The `http` crate's `Uri` holds at most 65,534 bytes (`u16::MAX - 1`). hyper answers a
//! longer request target with a bare `414 URI Too Long` and no body before any handler
//! runs, so the API's rule "every 4xx/5xx has a JSON body" cannot be kept by a handler.
//! The accept loop (`listen.rs`) wraps each accepted connection in a [`UriGuard`] that
//! watches the bytes hyper reads:
//!
//! ```text
//! GET /api/snapshot?match=…(> 65,534 bytes)… HTTP/1.1\r\n   ← request line: the target is counted
//! Host: …\r\n                                               ← header lines: skipped
//! \r\n                                                      ← blank line: the next request follows
//! ```
//!
//! When a target grows past the limit, hyper gets no more bytes: the guard writes its own
//! `414` with a JSON body (`{"error": …, "component": "request"}`, as every other API
//! error, and the security headers of every answer), closes the connection and then reports end of input to hyper, which drops the
//! unfinished request without answering. A request with a body (`Content-Length` or
//! `Transfer-Encoding`) or an HTTP/2 connection (`PRI * HTTP/2.0`) turns the guard off for the
//! rest of the connection, since its bytes are no longer request lines.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// The longest request target the `http` crate accepts (its `Uri` length limit), in bytes.
pub const MAX_TARGET: usize = u16::MAX as usize - 1;

/// The most bytes of a refused request read and dropped after the answer (see
/// [`State::Draining`]); a client sending more gets its connection closed.
const MAX_DRAIN: usize = 4 << 20;

/// Where the guard is in the byte stream of a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// In a request line: `spaces` separators seen so far, `target` bytes of the target,
    /// `len` bytes of the line (for the HTTP/2 preface check).
    RequestLine {
        spaces: u8,
        target: usize,
        len: usize,
    },
    /// In a header line of `len` bytes so far.
    Header { len: usize },
    /// Not watching any more (a body follows, or HTTP/2).
    Off,
    /// The target was too long: `written` bytes of the answer are out.
    Refusing { written: usize },
    /// The answer is out and the sending side shut: the rest of the request is read and
    /// dropped (`discarded` bytes so far), so that closing does not reset the connection
    /// before the client has read the answer.
    Draining { discarded: usize },
    /// Done: hyper reads end of input.
    Closed,
}

/// An I/O stream that passes bytes through to hyper until a request target exceeds
/// [`MAX_TARGET`], then answers `414` itself (see the module header).
pub struct UriGuard<T> {
    io: T,
    state: State,
    /// The first bytes of the current header line, lower-cased, to spot body headers.
    head: [u8; 18],
    /// The first bytes of the current request line, to spot the HTTP/2 preface.
    line: [u8; 14],
    answer: Vec<u8>,
}

impl<T> UriGuard<T> {
    /// Wraps one accepted connection.
    pub fn new(io: T) -> Self {
        Self {
            io,
            state: State::RequestLine {
                spaces: 0,
                target: 0,
                len: 0,
            },
            head: [0; 18],
            line: [0; 14],
            answer: Vec::new(),
        }
    }

    /// Feeds bytes hyper is about to read; returns how many of them hyper may have (all of
    /// them unless the target just grew too long).
    fn watch(&mut self, bytes: &[u8]) -> usize {
        for (i, &b) in bytes.iter().enumerate() {
            match &mut self.state {
                State::RequestLine {
                    spaces,
                    target,
                    len,
                } => {
                    if *len < self.line.len() {
                        self.line[*len] = b;
                    }
                    *len += 1;
                    match b {
                        b'\n' => {
                            let seen = &self.line[..(*len).min(self.line.len())];
                            self.state = if seen.starts_with(b"PRI * HTTP/2.0") {
                                State::Off
                            } else if *len <= 2 {
                                // A blank line between requests (RFC 9112 §2.2 allows them).
                                State::RequestLine {
                                    spaces: 0,
                                    target: 0,
                                    len: 0,
                                }
                            } else {
                                State::Header { len: 0 }
                            };
                        }
                        b' ' => *spaces = spaces.saturating_add(1),
                        _ if *spaces == 1 => {
                            *target += 1;
                            if *target > MAX_TARGET {
                                self.refuse();
                                return i;
                            }
                        }
                        _ => {}
                    }
                }
                State::Header { len } => {
                    if b == b'\n' {
                        let blank = *len == 0 || (*len == 1 && self.head[0] == b'\r');
                        let n = (*len).min(self.head.len());
                        let name = &self.head[..n];
                        self.state = if blank {
                            State::RequestLine {
                                spaces: 0,
                                target: 0,
                                len: 0,
                            }
                        } else if name.starts_with(b"content-length:")
                            || name.starts_with(b"transfer-encoding:")
                        {
                            State::Off
                        } else {
                            State::Header { len: 0 }
                        };
                    } else {
                        if *len < self.head.len() {
                            self.head[*len] = b.to_ascii_lowercase();
                        }
                        *len += 1;
                    }
                }
                State::Off | State::Refusing { .. } | State::Draining { .. } | State::Closed => {
                    return bytes.len()
                }
            }
        }
        bytes.len()
    }

    /// Switches to answering `414` with the API's JSON error body.
    fn refuse(&mut self) {
        let body = serde_json::json!({
            "error": format!(
                "the request target is longer than {MAX_TARGET} bytes, the most an HTTP \
                 request here can carry: pass fewer or shorter match patterns"
            ),
            "component": "request",
        })
        .to_string();
        let security: String = super::SECURITY_HEADERS
            .iter()
            .map(|(name, value)| format!("{name}: {value}\r\n"))
            .collect();
        self.answer = format!(
            "HTTP/1.1 414 URI Too Long\r\ncontent-type: application/json\r\n\
             content-length: {}\r\n{security}connection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes();
        self.state = State::Refusing { written: 0 };
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> UriGuard<T> {
    /// Writes the rest of the `414` answer and shuts the connection; `Ready` when done.
    fn poll_refuse(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while let State::Refusing { written } = self.state {
            if written == self.answer.len() {
                std::task::ready!(Pin::new(&mut self.io).poll_shutdown(cx))?;
                self.state = State::Draining { discarded: 0 };
                break;
            }
            let n =
                std::task::ready!(Pin::new(&mut self.io).poll_write(cx, &self.answer[written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.state = State::Refusing {
                written: written + n,
            };
        }
        while let State::Draining { discarded } = self.state {
            let mut scratch = [0u8; 16 * 1024];
            let mut buf = ReadBuf::new(&mut scratch);
            let got = match std::task::ready!(Pin::new(&mut self.io).poll_read(cx, &mut buf)) {
                Ok(()) => buf.filled().len(),
                Err(_) => 0,
            };
            self.state = if got == 0 || discarded + got > MAX_DRAIN {
                State::Closed
            } else {
                State::Draining {
                    discarded: discarded + got,
                }
            };
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> AsyncRead for UriGuard<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if matches!(
            this.state,
            State::Refusing { .. } | State::Draining { .. } | State::Closed
        ) {
            // End of input for hyper once the answer is out.
            return this.poll_refuse(cx);
        }
        let before = buf.filled().len();
        std::task::ready!(Pin::new(&mut this.io).poll_read(cx, buf))?;
        if this.state == State::Off {
            return Poll::Ready(Ok(()));
        }
        let fresh = buf.filled().len() - before;
        let keep = this.watch(&buf.filled()[before..]);
        if keep < fresh {
            buf.set_filled(before + keep);
            if keep == 0 {
                return this.poll_refuse(cx);
            }
        }
        Poll::Ready(Ok(()))
    }
}

impl<T: AsyncRead + AsyncWrite + Unpin> AsyncWrite for UriGuard<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match this.state {
            // hyper has nothing to say about a request it never saw whole.
            State::Refusing { .. } | State::Draining { .. } | State::Closed => {
                Poll::Ready(Ok(data.len()))
            }
            _ => Pin::new(&mut this.io).poll_write(cx, data),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match this.state {
            State::Refusing { .. } | State::Draining { .. } | State::Closed => Poll::Ready(Ok(())),
            _ => Pin::new(&mut this.io).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        match this.state {
            State::Refusing { .. } | State::Draining { .. } => this.poll_refuse(cx),
            State::Closed => Poll::Ready(Ok(())),
            _ => Pin::new(&mut this.io).poll_shutdown(cx),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        match this.state {
            State::Refusing { .. } | State::Draining { .. } | State::Closed => {
                Poll::Ready(Ok(bufs.iter().map(|b| b.len()).sum()))
            }
            _ => Pin::new(&mut this.io).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fed(chunks: &[&[u8]]) -> (UriGuard<()>, Vec<usize>) {
        let mut g = UriGuard::new(());
        let kept = chunks.iter().map(|c| g.watch(c)).collect();
        (g, kept)
    }

    #[test]
    fn a_target_at_the_limit_passes_and_one_byte_more_is_refused() {
        let at = format!("GET /{} HTTP/1.1\r\n", "a".repeat(MAX_TARGET - 1));
        let (g, kept) = fed(&[at.as_bytes()]);
        assert_eq!(kept, [at.len()]);
        assert_eq!(g.state, State::Header { len: 0 });

        let over = format!("GET /{} HTTP/1.1\r\n", "a".repeat(MAX_TARGET));
        let (g, kept) = fed(&[&over.as_bytes()[..40_000], &over.as_bytes()[40_000..]]);
        // "GET " + MAX_TARGET target bytes pass; the next target byte is held back.
        assert_eq!(kept, [40_000, 4 + MAX_TARGET - 40_000]);
        assert_eq!(g.state, State::Refusing { written: 0 });
        let answer = String::from_utf8(g.answer).unwrap();
        assert!(
            answer.starts_with("HTTP/1.1 414 URI Too Long\r\n"),
            "{answer}"
        );
        let body = answer.split("\r\n\r\n").nth(1).unwrap();
        let j: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(j["component"], "request");
        assert!(j["error"].as_str().unwrap().contains("65534 bytes"));
        assert!(answer.contains(&format!("content-length: {}\r\n", body.len())));
    }

    #[test]
    fn every_request_of_a_keep_alive_connection_is_watched() {
        let first = b"GET /api/info HTTP/1.1\r\nHost: x\r\n\r\n";
        let second = format!("GET /{} HTTP/1.1\r\n", "b".repeat(MAX_TARGET + 10));
        let (g, kept) = fed(&[first, second.as_bytes()]);
        assert_eq!(kept[0], first.len());
        assert_eq!(kept[1], 4 + MAX_TARGET);
        assert_eq!(g.state, State::Refusing { written: 0 });
    }

    #[test]
    fn bodies_and_http2_turn_the_guard_off() {
        let long_body = "c".repeat(MAX_TARGET * 2);
        let post = format!(
            "POST /api/snapshot HTTP/1.1\r\nContent-Length: {}\r\n\r\n x{long_body}",
            long_body.len() + 2
        );
        let (g, kept) = fed(&[post.as_bytes()]);
        assert_eq!(kept, [post.len()]);
        assert_eq!(g.state, State::Off);

        let h2 = format!("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n {long_body}");
        let (g, kept) = fed(&[h2.as_bytes()]);
        assert_eq!(kept, [h2.len()]);
        assert_eq!(g.state, State::Off);
    }
}
