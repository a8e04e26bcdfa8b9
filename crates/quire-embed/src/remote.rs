//! Remote embedders: an embedding service over HTTP (blocking `ureq`), one request per batch
//! of at most [`BATCH`] texts.
//!
//! Providers: `openai` (and any OpenAI-compatible `http` server), `ollama`, `cohere`,
//! `voyage`, `bedrock` (Amazon Bedrock's `InvokeModel`, signed with AWS SigV4 from the
//! environment's credentials, or an Amazon Bedrock API key as a bearer token), `vertex`
//! (Vertex AI's `predict`, with an access token from the service account that
//! `GOOGLE_APPLICATION_CREDENTIALS` names, or an access token given as the API key).

use std::time::Duration;

use serde_json::{json, Value};

use crate::sigv4::{self, Credentials};
use crate::vertex::Account;
use crate::{normalise, EmbedError, Embedder, Purpose};

/// The most texts sent in one request (providers cap a batch at 96–2048; 64 keeps bodies small).
pub const BATCH: usize = 64;

/// How to reach a remote embedder: plain data, filled from the configuration by the service.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteSpec {
    /// `openai`, `http` (an OpenAI-compatible server at `url`), `ollama`, `cohere`, `voyage`,
    /// `bedrock`, `vertex`.
    pub provider: String,
    /// The API base, e.g. `https://api.openai.com/v1`; each provider has a default but `http`.
    pub url: Option<String>,
    /// The model; each provider has a default.
    pub model: Option<String>,
    /// Sent as `Authorization: Bearer …`; required by `cohere` and `voyage`.
    pub api_key: Option<String>,
    /// The vector length. Asked of `openai`/`http` (models that can shorten their vectors);
    /// when `None` it is learned by embedding one short text at construction.
    pub dimensions: Option<usize>,
    /// For each request as a whole; a request that takes longer is [`EmbedError::Unreachable`].
    pub timeout: Duration,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Provider {
    OpenAi,
    Ollama,
    Cohere,
    Voyage,
    Bedrock,
    Vertex,
}

/// How a `bedrock` request is signed when no API key is given.
#[derive(Debug, Clone)]
struct Aws {
    credentials: Credentials,
    region: String,
}

/// An embedder behind HTTP.
pub struct Remote {
    provider: Provider,
    name: &'static str,
    endpoint: String,
    model: String,
    api_key: Option<String>,
    /// Sent in the request (`openai`/`http` only) when the configuration names it.
    ask_dimensions: Option<usize>,
    dimensions: usize,
    /// `bedrock` without an API key: SigV4 with these.
    aws: Option<Aws>,
    /// `vertex` without an API key: the service account that gets access tokens.
    google: Option<Account>,
    agent: ureq::Agent,
}

impl std::fmt::Debug for Remote {
    // By hand: the API key stays out of logs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remote")
            .field("provider", &self.name)
            .field("endpoint", &self.endpoint)
            .field("model", &self.model)
            .field("dimensions", &self.dimensions)
            .finish_non_exhaustive()
    }
}

/// The embedder `spec` describes.
///
/// When `spec.dimensions` is `None` this embeds one short text to learn the vector length, so
/// it does one request and fails as [`Embedder::embed`] does if the service is down.
///
/// # Errors
/// [`EmbedError::Config`] for an unknown or unbuilt provider, `http` without a `url`, or
/// `cohere`/`voyage` without a key; the errors of [`Embedder::embed`] from the probe.
pub fn remote(spec: &RemoteSpec) -> Result<Box<dyn Embedder>, EmbedError> {
    let (provider, name, default_url, path, default_model) = match spec.provider.as_str() {
        "openai" => (
            Provider::OpenAi,
            "openai",
            Some("https://api.openai.com/v1"),
            "/embeddings",
            "text-embedding-3-small",
        ),
        "http" => (
            Provider::OpenAi,
            "http",
            None,
            "/embeddings",
            "text-embedding-3-small",
        ),
        "ollama" => (
            Provider::Ollama,
            "ollama",
            Some("http://127.0.0.1:11434"),
            "/api/embed",
            "nomic-embed-text",
        ),
        "cohere" => (
            Provider::Cohere,
            "cohere",
            Some("https://api.cohere.com"),
            "/v2/embed",
            "embed-english-v3.0",
        ),
        "voyage" => (
            Provider::Voyage,
            "voyage",
            Some("https://api.voyageai.com"),
            "/v1/embeddings",
            "voyage-3-lite",
        ),
        "bedrock" => return bedrock(spec),
        "vertex" => return vertex(spec),
        other => {
            return Err(EmbedError::Config(format!(
                "unknown embedding provider {other:?} (openai, http, ollama, cohere, voyage, \
                 bedrock)"
            )))
        }
    };
    let base = match (&spec.url, default_url) {
        (Some(url), _) => url.as_str(),
        (None, Some(url)) => url,
        (None, None) => {
            return Err(EmbedError::Config(format!(
                "the {name} embedder needs a url"
            )))
        }
    };
    let api_key = spec.api_key.clone().filter(|k| !k.is_empty());
    if api_key.is_none() && matches!(provider, Provider::Cohere | Provider::Voyage) {
        return Err(EmbedError::Config(format!(
            "the {name} embedder needs an API key"
        )));
    }
    if spec.dimensions == Some(0) {
        return Err(EmbedError::Config(
            "embedding dimensions must be at least 1".into(),
        ));
    }
    let remote = Remote {
        provider,
        name,
        endpoint: format!("{}{path}", base.trim_end_matches('/')),
        model: spec
            .model
            .clone()
            .unwrap_or_else(|| default_model.to_owned()),
        api_key,
        ask_dimensions: spec.dimensions.filter(|_| provider == Provider::OpenAi),
        dimensions: spec.dimensions.unwrap_or(0),
        aws: None,
        google: None,
        agent: ureq::AgentBuilder::new().timeout(spec.timeout).build(),
    };
    probed(remote)
}

/// The `bedrock` embedder: `InvokeModel` at `{url}/model/{model}/invoke`, the url by default
/// `https://bedrock-runtime.{region}.amazonaws.com` with the region from `AWS_REGION` (else
/// `AWS_DEFAULT_REGION`, else `us-east-1`). An `api_key` is an Amazon Bedrock API key, sent as
/// a bearer token; without one the request is signed (SigV4, service `bedrock`) with
/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`. Titan models take one
/// text per request (`inputText`, and `dimensions` when configured); `cohere.*` models a batch.
fn bedrock(spec: &RemoteSpec) -> Result<Box<dyn Embedder>, EmbedError> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let region = var("AWS_REGION")
        .or_else(|| var("AWS_DEFAULT_REGION"))
        .unwrap_or_else(|| "us-east-1".to_owned());
    let base = spec
        .url
        .clone()
        .unwrap_or_else(|| format!("https://bedrock-runtime.{region}.amazonaws.com"));
    let model = spec
        .model
        .clone()
        .unwrap_or_else(|| "amazon.titan-embed-text-v2:0".to_owned());
    let api_key = spec.api_key.clone().filter(|k| !k.is_empty());
    let aws = match &api_key {
        Some(_) => None,
        None => Some(Aws {
            credentials: Credentials::from_env().ok_or_else(|| {
                EmbedError::Config(
                    "the bedrock embedder needs an api_key (an Amazon Bedrock API key) or \
                     AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment"
                        .into(),
                )
            })?,
            region,
        }),
    };
    if spec.dimensions == Some(0) {
        return Err(EmbedError::Config(
            "embedding dimensions must be at least 1".into(),
        ));
    }
    let remote = Remote {
        provider: Provider::Bedrock,
        name: "bedrock",
        endpoint: format!(
            "{}/model/{}/invoke",
            base.trim_end_matches('/'),
            sigv4::encode(&model)
        ),
        ask_dimensions: spec.dimensions.filter(|_| !model.starts_with("cohere.")),
        model,
        api_key,
        dimensions: spec.dimensions.unwrap_or(0),
        aws,
        google: None,
        agent: ureq::AgentBuilder::new().timeout(spec.timeout).build(),
    };
    probed(remote)
}

/// The `vertex` embedder: Vertex AI's `predict` at
/// `{url}/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:predict`,
/// the url by default `https://{location}-aiplatform.googleapis.com`, the project from
/// `GOOGLE_CLOUD_PROJECT` (else the service account's), the location from
/// `GOOGLE_CLOUD_LOCATION` (else `us-central1`), the model by default `text-embedding-005`.
/// An `api_key` is an OAuth access token sent as is; without one the service account key
/// file that `GOOGLE_APPLICATION_CREDENTIALS` names gets the tokens (`vertex.rs`).
fn vertex(spec: &RemoteSpec) -> Result<Box<dyn Embedder>, EmbedError> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let api_key = spec.api_key.clone().filter(|k| !k.is_empty());
    let google = match &api_key {
        Some(_) => None,
        None => {
            let path = var("GOOGLE_APPLICATION_CREDENTIALS").ok_or_else(|| {
                EmbedError::Config(
                    "the vertex embedder needs an api_key (an access token) or \
                     GOOGLE_APPLICATION_CREDENTIALS naming a service account key file"
                        .into(),
                )
            })?;
            Some(Account::from_file(&path, spec.timeout)?)
        }
    };
    let project = var("GOOGLE_CLOUD_PROJECT")
        .or_else(|| google.as_ref().and_then(|g| g.project_id.clone()))
        .ok_or_else(|| {
            EmbedError::Config("the vertex embedder needs GOOGLE_CLOUD_PROJECT".into())
        })?;
    let location = var("GOOGLE_CLOUD_LOCATION").unwrap_or_else(|| "us-central1".to_owned());
    let base = spec
        .url
        .clone()
        .unwrap_or_else(|| format!("https://{location}-aiplatform.googleapis.com"));
    let model = spec
        .model
        .clone()
        .unwrap_or_else(|| "text-embedding-005".to_owned());
    if spec.dimensions == Some(0) {
        return Err(EmbedError::Config(
            "embedding dimensions must be at least 1".into(),
        ));
    }
    let remote = Remote {
        provider: Provider::Vertex,
        name: "vertex",
        endpoint: format!(
            "{}/v1/projects/{}/locations/{}/publishers/google/models/{}:predict",
            base.trim_end_matches('/'),
            sigv4::encode(&project),
            sigv4::encode(&location),
            sigv4::encode(&model)
        ),
        model,
        api_key,
        ask_dimensions: spec.dimensions,
        dimensions: spec.dimensions.unwrap_or(0),
        aws: None,
        google,
        agent: ureq::AgentBuilder::new().timeout(spec.timeout).build(),
    };
    probed(remote)
}

/// `remote` once its vector length is known: asked of the service with one short text when
/// the configuration does not say it.
fn probed(mut remote: Remote) -> Result<Box<dyn Embedder>, EmbedError> {
    let name = remote.name;
    if remote.dimensions == 0 {
        let probe = remote.request(&["dimension probe"], Purpose::Query)?;
        remote.dimensions = probe.first().map_or(0, Vec::len);
        if remote.dimensions == 0 {
            return Err(EmbedError::Refused(format!(
                "{name} answered an empty vector"
            )));
        }
    }
    Ok(Box::new(remote))
}

impl Remote {
    fn body(&self, texts: &[&str], purpose: Purpose) -> Value {
        match self.provider {
            Provider::OpenAi => {
                let mut body = json!({ "model": self.model, "input": texts });
                if let Some(d) = self.ask_dimensions {
                    body["dimensions"] = json!(d);
                }
                body
            }
            Provider::Ollama => json!({ "model": self.model, "input": texts }),
            Provider::Cohere => json!({
                "model": self.model,
                "texts": texts,
                "input_type": match purpose {
                    Purpose::Document => "search_document",
                    Purpose::Query => "search_query",
                },
                "embedding_types": ["float"],
            }),
            Provider::Voyage => json!({
                "model": self.model,
                "input": texts,
                "input_type": match purpose {
                    Purpose::Document => "document",
                    Purpose::Query => "query",
                },
            }),
            Provider::Bedrock if self.model.starts_with("cohere.") => json!({
                "texts": texts,
                "input_type": match purpose {
                    Purpose::Document => "search_document",
                    Purpose::Query => "search_query",
                },
            }),
            Provider::Vertex => {
                let task = match purpose {
                    Purpose::Document => "RETRIEVAL_DOCUMENT",
                    Purpose::Query => "RETRIEVAL_QUERY",
                };
                let instances: Vec<Value> = texts
                    .iter()
                    .map(|t| json!({ "content": t, "task_type": task }))
                    .collect();
                let mut body = json!({ "instances": instances });
                if let Some(d) = self.ask_dimensions {
                    body["parameters"] = json!({ "outputDimensionality": d });
                }
                body
            }
            // Titan: one text per request (`request` sends them one by one).
            Provider::Bedrock => {
                let mut body = json!({ "inputText": texts.first().copied().unwrap_or("") });
                if let Some(d) = self.ask_dimensions {
                    body["dimensions"] = json!(d);
                }
                body
            }
        }
    }

    /// One request (one per text for Bedrock's Titan models): the raw vectors, checked for
    /// count but not yet for length.
    fn request(&self, texts: &[&str], purpose: Purpose) -> Result<Vec<Vec<f32>>, EmbedError> {
        // Bedrock's Titan and Vertex's Gemini embedding models take one text per request.
        let one_each = match self.provider {
            Provider::Bedrock => !self.model.starts_with("cohere."),
            Provider::Vertex => self.model.starts_with("gemini"),
            _ => false,
        };
        if one_each {
            let mut out = Vec::with_capacity(texts.len());
            for text in texts {
                out.extend(self.request_once(&[text], purpose)?);
            }
            return Ok(out);
        }
        self.request_once(texts, purpose)
    }

    fn request_once(&self, texts: &[&str], purpose: Purpose) -> Result<Vec<Vec<f32>>, EmbedError> {
        let body = serde_json::to_vec(&self.body(texts, purpose))
            .map_err(|e| EmbedError::Config(format!("{}: {e}", self.name)))?;
        let mut req = self
            .agent
            .post(&self.endpoint)
            .set("Content-Type", "application/json");
        if let Some(key) = &self.api_key {
            req = req.set("Authorization", &format!("Bearer {key}"));
        }
        if let Some(account) = &self.google {
            req = req.set("Authorization", &format!("Bearer {}", account.token()?));
        }
        if let Some(aws) = &self.aws {
            let (host, path) = host_and_path(&self.endpoint);
            let request = sigv4::Request {
                method: "POST",
                host,
                path,
                headers: &[("content-type", "application/json")],
                body: &body,
            };
            let now = sigv4::now();
            for (name, value) in
                sigv4::sign(&request, &aws.credentials, &aws.region, "bedrock", &now)
            {
                req = req.set(&name, &value);
            }
        }
        let answer = match req.send_bytes(&body) {
            Ok(answer) => answer,
            Err(ureq::Error::Status(status, answer)) => {
                let body = answer.into_string().unwrap_or_default();
                return Err(EmbedError::Refused(format!(
                    "{} answered {status}: {}",
                    self.name,
                    self.excerpt(&body)
                )));
            }
            Err(ureq::Error::Transport(t)) if t.kind() == ureq::ErrorKind::InvalidUrl => {
                return Err(EmbedError::Config(format!("{}: {t}", self.name)));
            }
            Err(ureq::Error::Transport(t)) => {
                return Err(EmbedError::Unreachable(format!(
                    "{} at {}: {t}",
                    self.name, self.endpoint
                )));
            }
        };
        let text = answer
            .into_string()
            .map_err(|e| EmbedError::Unreachable(format!("{} answer unread: {e}", self.name)))?;
        let value: Value = serde_json::from_str(&text).map_err(|e| {
            EmbedError::Refused(format!(
                "{} answered no JSON ({e}): {}",
                self.name,
                self.excerpt(&text)
            ))
        })?;
        let vectors = self.vectors(&value).ok_or_else(|| {
            EmbedError::Refused(format!(
                "{} answered an unknown shape: {}",
                self.name,
                self.excerpt(&text)
            ))
        })?;
        if vectors.len() != texts.len() {
            return Err(EmbedError::Refused(format!(
                "{} answered {} vectors for {} texts",
                self.name,
                vectors.len(),
                texts.len()
            )));
        }
        Ok(vectors)
    }

    /// The vectors of an answer, in input order; `None` if the answer has another shape.
    fn vectors(&self, answer: &Value) -> Option<Vec<Vec<f32>>> {
        let floats = |v: &Value| -> Option<Vec<f32>> {
            #[allow(clippy::cast_possible_truncation)]
            v.as_array()?
                .iter()
                .map(|x| x.as_f64().map(|x| x as f32))
                .collect()
        };
        match self.provider {
            Provider::OpenAi | Provider::Voyage => {
                let mut rows: Vec<(u64, Vec<f32>)> = answer["data"]
                    .as_array()?
                    .iter()
                    .enumerate()
                    .map(|(i, d)| {
                        Some((
                            d["index"].as_u64().unwrap_or(i as u64),
                            floats(&d["embedding"])?,
                        ))
                    })
                    .collect::<Option<_>>()?;
                rows.sort_by_key(|(i, _)| *i);
                Some(rows.into_iter().map(|(_, v)| v).collect())
            }
            Provider::Ollama => answer["embeddings"]
                .as_array()?
                .iter()
                .map(floats)
                .collect(),
            Provider::Cohere => answer["embeddings"]["float"]
                .as_array()?
                .iter()
                .map(floats)
                .collect(),
            Provider::Bedrock if self.model.starts_with("cohere.") => answer["embeddings"]
                .as_array()?
                .iter()
                .map(floats)
                .collect(),
            Provider::Bedrock => Some(vec![floats(&answer["embedding"])?]),
            Provider::Vertex => answer["predictions"]
                .as_array()?
                .iter()
                .map(|p| floats(&p["embeddings"]["values"]))
                .collect(),
        }
    }

    /// The start of an answer, for an error message; the key never appears in it (it is
    /// blanked before the cut, so no prefix of it survives either).
    fn excerpt(&self, body: &str) -> String {
        let body = match &self.api_key {
            Some(key) => body.replace(key.as_str(), "[key]"),
            None => body.to_owned(),
        };
        let mut s: String = body.chars().take(200).collect();
        if body.chars().nth(200).is_some() {
            s.push('…');
        }
        s
    }
}

impl Embedder for Remote {
    fn model(&self) -> &str {
        &self.model
    }

    fn dimensions(&self) -> usize {
        self.dimensions
    }

    fn embed(&self, texts: &[&str], purpose: Purpose) -> Result<Vec<Vec<f32>>, EmbedError> {
        let mut out = Vec::with_capacity(texts.len());
        for batch in texts.chunks(BATCH) {
            for mut v in self.request(batch, purpose)? {
                if v.len() != self.dimensions {
                    return Err(EmbedError::Refused(format!(
                        "{} answered a vector of {} numbers, expected {}",
                        self.name,
                        v.len(),
                        self.dimensions
                    )));
                }
                normalise(&mut v);
                out.push(v);
            }
        }
        Ok(out)
    }
}

/// The host (with its port, as the `Host` header carries it) and the path of a URL.
fn host_and_path(url: &str) -> (&str, &str) {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    }
}
