//! The declaration of an operation: names, scope and the bindings adapters derive from.

use quire_api::Scope;

/// An HTTP method of a REST binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
}

impl Method {
    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
        }
    }
}

/// How a REST route carries an operation's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Carrier {
    /// Query parameters, one per field of the input (path parameters of the route too).
    Query,
    /// A JSON body (path parameters of the route are set on it, overriding the body's).
    Json,
    /// Raw bytes on the wire: the input's other fields are query parameters, `body` names
    /// the field sent as the raw request body (with its media type), `answer` the media type
    /// of a raw answer (`None`: the output as JSON). The REST adapter has a handler of its own
    /// for each (it adds headers such as `ETag`), calling the same operation.
    Raw(Raw),
}

/// The raw parts of a [`Carrier::Raw`] binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Raw {
    /// The input field carried as the request body, and the body's media type.
    pub body: Option<(&'static str, &'static str)>,
    /// The media type of the answer when it is raw.
    pub answer: Option<&'static str>,
}

/// The REST route of an operation, under `{base_url}` (and `{base_url}/{space}`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rest {
    pub method: Method,
    /// The route, with `{name}` path parameters (`/views/{name}`).
    pub path: &'static str,
    pub carrier: Carrier,
    /// Input fields a JSON-carried route reads from the query string (`PATCH /canvas?path=`):
    /// given there, they are set on the body (as path parameters are).
    pub query_fields: &'static [&'static str],
    /// The input field a JSON body is, when the body is not the whole input (`PUT
    /// /workflows/{name}` sends the workflow itself, not `{"workflow": …}`).
    pub body_field: Option<&'static str>,
    /// An empty JSON body (or none) is read as `{}`: a `POST` whose every field is optional.
    pub empty_body: bool,
    /// The status of a success: 200, 201 (created) or 204 (no content: the output is not
    /// sent; other adapters still get it).
    pub status: u16,
    /// A JSON-carried route that answers raw bytes of these media types (`POST
    /// /export/document`); its handler is the adapter's own.
    pub raw_answers: &'static [&'static str],
}

impl Rest {
    const fn route(method: Method, path: &'static str, carrier: Carrier) -> Rest {
        Rest {
            method,
            path,
            carrier,
            query_fields: &[],
            body_field: None,
            empty_body: false,
            status: 200,
            raw_answers: &[],
        }
    }

    pub const fn get(path: &'static str) -> Rest {
        Rest::route(Method::Get, path, Carrier::Query)
    }

    pub const fn delete(path: &'static str) -> Rest {
        Rest::route(Method::Delete, path, Carrier::Query)
    }

    pub const fn post(path: &'static str) -> Rest {
        Rest::route(Method::Post, path, Carrier::Json)
    }

    pub const fn put(path: &'static str) -> Rest {
        Rest::route(Method::Put, path, Carrier::Json)
    }

    pub const fn patch(path: &'static str) -> Rest {
        Rest::route(Method::Patch, path, Carrier::Json)
    }

    /// The same JSON route, reading `fields` of the input from the query string.
    pub const fn query_fields(self, fields: &'static [&'static str]) -> Rest {
        Rest {
            query_fields: fields,
            ..self
        }
    }

    /// The same JSON route, whose body is input field `field`.
    pub const fn body_field(self, field: &'static str) -> Rest {
        Rest {
            body_field: Some(field),
            ..self
        }
    }

    /// The same JSON route, reading an empty body as `{}`.
    pub const fn empty_body(self) -> Rest {
        Rest {
            empty_body: true,
            ..self
        }
    }

    /// The same route, answering `201 Created`.
    pub const fn created(self) -> Rest {
        Rest {
            status: 201,
            ..self
        }
    }

    /// The same route, answering `204 No Content` (the output is not sent).
    pub const fn no_content(self) -> Rest {
        Rest {
            status: 204,
            ..self
        }
    }

    /// The same route with its input in a JSON body (a `DELETE` with a body).
    pub const fn json(self) -> Rest {
        Rest {
            carrier: Carrier::Json,
            ..self
        }
    }

    /// The same route with its input in the query string (a `POST` that takes no body: any
    /// body sent is ignored).
    pub const fn query(self) -> Rest {
        Rest {
            carrier: Carrier::Query,
            ..self
        }
    }

    /// The same JSON route, answering raw bytes of one of `media` (not JSON).
    pub const fn answering_raw(self, media: &'static [&'static str]) -> Rest {
        Rest {
            raw_answers: media,
            ..self
        }
    }

    /// The same route, answering raw bytes of media type `media`.
    pub const fn raw_answer(self, media: &'static str) -> Rest {
        Rest {
            carrier: Carrier::Raw(Raw {
                body: None,
                answer: Some(media),
            }),
            ..self
        }
    }

    /// The same route, taking input field `field` as the raw body of media type `media`.
    pub const fn raw_body(self, field: &'static str, media: &'static str) -> Rest {
        Rest {
            carrier: Carrier::Raw(Raw {
                body: Some((field, media)),
                answer: None,
            }),
            ..self
        }
    }
}

/// The MCP tool of an operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tool {
    /// `quire_*`.
    pub name: &'static str,
    /// MCP structured content is an object: an output that is a list is sent as
    /// `{<envelope>: [...]}`.
    pub envelope: Option<&'static str>,
}

impl Tool {
    pub const fn named(name: &'static str) -> Tool {
        Tool {
            name,
            envelope: None,
        }
    }

    pub const fn listing(name: &'static str, envelope: &'static str) -> Tool {
        Tool {
            name,
            envelope: Some(envelope),
        }
    }
}

/// What every adapter knows of an operation.
#[derive(Debug, Clone, Copy)]
pub struct Meta {
    /// Stable and unique: the OpenAPI `operationId`, the name audit entries and metrics
    /// record, the command line's `quire api <name>`.
    pub name: &'static str,
    /// The area (`files`, `search` …): the OpenAPI tag.
    pub area: &'static str,
    /// One line for people (OpenAPI summary, `--help`).
    pub summary: &'static str,
    /// For agents: when to use it and what it costs (the MCP tool description); empty =
    /// the summary.
    pub description: &'static str,
    /// What a credential needs to call it.
    pub scope: Scope,
    pub rest: Option<Rest>,
    pub tool: Option<Tool>,
    /// Needs vector search (`[search.vector] enabled`): its MCP tool is listed only where it
    /// is on (its route answers 503 elsewhere).
    pub needs_vectors: bool,
}

impl Meta {
    /// A read-only operation of `area`, bound to nothing yet.
    pub const fn read(name: &'static str, area: &'static str, summary: &'static str) -> Meta {
        Meta {
            name,
            area,
            summary,
            description: "",
            scope: Scope::Read,
            rest: None,
            tool: None,
            needs_vectors: false,
        }
    }

    /// An operation that changes the knowledge base.
    pub const fn write(name: &'static str, area: &'static str, summary: &'static str) -> Meta {
        Meta {
            scope: Scope::Write,
            ..Meta::read(name, area, summary)
        }
    }

    /// An operation for administrators.
    pub const fn admin(name: &'static str, area: &'static str, summary: &'static str) -> Meta {
        Meta {
            scope: Scope::Admin,
            ..Meta::read(name, area, summary)
        }
    }

    pub const fn rest(self, rest: Rest) -> Meta {
        Meta {
            rest: Some(rest),
            ..self
        }
    }

    pub const fn tool(self, tool: Tool) -> Meta {
        Meta {
            tool: Some(tool),
            ..self
        }
    }

    /// Marks an operation of vector search.
    pub const fn needs_vectors(self) -> Meta {
        Meta {
            needs_vectors: true,
            ..self
        }
    }

    pub const fn describe(self, description: &'static str) -> Meta {
        Meta {
            description,
            ..self
        }
    }

    /// Whether calling it changes nothing.
    pub fn read_only(&self) -> bool {
        self.scope == Scope::Read
    }

    /// The text for agents.
    pub fn description(&self) -> &'static str {
        if self.description.is_empty() {
            self.summary
        } else {
            self.description
        }
    }
}
