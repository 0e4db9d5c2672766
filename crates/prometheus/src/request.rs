//! One HTTP exchange of the `/metrics` endpoint: hyper's HTTP/1 server
//! with the endpoint's settings (no keep-alive, a deadline for the headers
//! and one for the whole exchange) answering through `answer`; the same
//! exchange on bytes in memory ([`answer_bytes`]), so that the
//! `prometheus_request` fuzz target reads requests without a socket.

use super::{answer, Shared, CONNECTION_DEADLINE, HEADER_DEADLINE};
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

/// Serves one connection on `io`, within the deadlines; a broken or slow
/// client only loses its own answer.
pub(super) async fn exchange<I>(io: I, shared: Arc<Shared>)
where
    I: hyper::rt::Read + hyper::rt::Write + Unpin,
{
    let service = hyper::service::service_fn(move |req| {
        let answer = answer(req.method(), req.uri().path(), &shared);
        async move { Ok::<_, std::convert::Infallible>(answer) }
    });
    let connection = hyper::server::conn::http1::Builder::new()
        .timer(hyper_util::rt::TokioTimer::new())
        .header_read_timeout(HEADER_DEADLINE)
        .keep_alive(false)
        .serve_connection(io, service);
    let _ = tokio::time::timeout(CONNECTION_DEADLINE, connection).await;
}

/// A connection in memory: the client's bytes, then its end; what the
/// server writes is kept.
struct Memory {
    input: Vec<u8>,
    read: usize,
    output: Arc<Mutex<Vec<u8>>>,
}

impl hyper::rt::Read for Memory {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        mut buf: hyper::rt::ReadBufCursor<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let n = buf.remaining().min(this.input.len() - this.read);
        buf.put_slice(&this.input[this.read..this.read + n]);
        this.read += n;
        Poll::Ready(Ok(()))
    }
}

impl hyper::rt::Write for Memory {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, b: &[u8]) -> Poll<io::Result<usize>> {
        super::lock(&self.output).extend_from_slice(b);
        Poll::Ready(Ok(b.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// What an endpoint exporting no run writes back to a client that sends
/// `request` on a connection and then closes its side: the exchange of
/// the endpoint, in memory. An error only when no runtime can be built.
pub fn answer_bytes(request: &[u8]) -> io::Result<Vec<u8>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()?;
    let output = Arc::new(Mutex::new(Vec::new()));
    let io = Memory {
        input: request.to_vec(),
        read: 0,
        output: output.clone(),
    };
    runtime.block_on(exchange(io, Arc::new(Shared::default())));
    let written = std::mem::take(&mut *super::lock(&output));
    Ok(written)
}
