//! A guard in front of the protocol library: it frames stdin itself and replaces any
//! message that is not JSON (or has broken headers) by a request that the server answers
//! with a parse error. The library would otherwise end the session at the first bad
//! message; a malformed message must cost only its own answer.

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};

/// The method a malformed message is replaced by.
pub const MALFORMED_METHOD: &str = "racelens/malformed";

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn malformed(reason: &str) -> Vec<u8> {
    let body =
        serde_json::json!({"jsonrpc": "2.0", "id": null, "method": MALFORMED_METHOD, "params": {"reason": reason}});
    frame(body.to_string().as_bytes())
}

/// Copies well-formed messages from `input` to `output` and replaces the others, until
/// `input` ends.
pub async fn guard(input: impl AsyncRead + Unpin, mut output: DuplexStream) {
    let mut input = BufReader::new(input);
    loop {
        let mut content_length: Option<usize> = None;
        let mut bad_header = None;
        let mut saw_header = false;
        loop {
            let mut line = String::new();
            match input.read_line(&mut line).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if saw_header {
                    break;
                }
                continue;
            }
            saw_header = true;
            match line.split_once(':') {
                Some((name, value)) if name.eq_ignore_ascii_case("Content-Length") => match value.trim().parse() {
                    Ok(n) => content_length = Some(n),
                    Err(_) => bad_header = Some(format!("bad Content-Length `{}`", value.trim())),
                },
                Some(_) => {} // Content-Type and unknown headers: JSON is UTF-8 anyway.
                None => {
                    bad_header = Some(format!("not a header line: `{}`", line.chars().take(40).collect::<String>()))
                }
            }
        }
        let Some(len) = content_length.filter(|_| bad_header.is_none()) else {
            let reason = bad_header.unwrap_or_else(|| "missing Content-Length".into());
            if output.write_all(&malformed(&reason)).await.is_err() {
                return;
            }
            continue;
        };
        let mut body = vec![0; len];
        if input.read_exact(&mut body).await.is_err() {
            return;
        }
        let forwarded = match serde_json::from_slice::<serde_json::Value>(&body) {
            Ok(serde_json::Value::Object(_)) => frame(&body),
            Ok(_) => malformed("the message is JSON but not a JSON-RPC object"),
            Err(e) => malformed(&format!("the message is not JSON: {e}")),
        };
        if output.write_all(&forwarded).await.is_err() {
            return;
        }
    }
}
