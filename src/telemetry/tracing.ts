/**
 * Spans through `@opentelemetry/api`, which Deno's built-in OpenTelemetry (`OTEL_DENO=true`)
 * wires to its OTLP exporter: one span per request (child of Deno's HTTP server span, ended at
 * the settle, so a stream's span covers the whole stream), one per upstream attempt (Deno's
 * fetch span nests under it) and one for the settle. Attributes follow the GenAI semantic
 * conventions; they carry identifiers and counts only, never a prompt or a completion.
 */
import {
  type Context,
  context,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from "@opentelemetry/api";
import type { RequestRecord } from "../state/records.ts";

/** What telemetry reads of a route (a `ResolvedRoute` fits). */
export interface AttemptRoute {
  providerId: string;
  dialect: string;
  route: { upstream_model: string };
}

/**
 * An upstream failure's kind (`UpstreamFailure.kind`), read structurally so telemetry stays
 * below the providers layer; `error` for anything else.
 */
export function failureKind(error: unknown): string {
  const kind = (error as { kind?: unknown } | null)?.kind;
  return error instanceof Error && typeof kind === "string" ? kind : "error";
}

function failureStatus(error: unknown): number | undefined {
  const status = (error as { status?: unknown } | null)?.status;
  return typeof status === "number" ? status : undefined;
}

export class RequestSpan {
  #ended = false;
  constructor(readonly span: Span, readonly ctx: Context) {}

  within<T>(fn: () => Promise<T>): Promise<T> {
    return context.with(this.ctx, fn);
  }

  /** The request ended without a settle. */
  end(status: number): void {
    if (this.#ended) return;
    this.#ended = true;
    this.span.setAttribute("http.response.status_code", status);
    if (status >= 500) this.span.setStatus({ code: SpanStatusCode.ERROR });
    this.span.end();
  }

  /** The settle's record: GenAI attributes, then the span ends. */
  settled(record: RequestRecord): void {
    if (this.#ended) return;
    this.#ended = true;
    const s = this.span;
    const operation = record.endpoint === "responses" ? "chat" : record.endpoint;
    s.updateName(`${operation} ${record.requested_model}`);
    s.setAttribute("gen_ai.operation.name", operation);
    s.setAttribute("gen_ai.request.model", record.requested_model);
    if (record.served_model) s.setAttribute("gen_ai.response.model", record.served_model);
    if (record.provider) s.setAttribute("gen_ai.provider.name", record.provider);
    if (record.prompt_tokens !== null) {
      s.setAttribute("gen_ai.usage.input_tokens", record.prompt_tokens);
    }
    if (record.completion_tokens !== null) {
      s.setAttribute("gen_ai.usage.output_tokens", record.completion_tokens);
    }
    s.setAttribute("http.response.status_code", record.status);
    s.setAttribute("sovra.request_id", record.id);
    s.setAttribute("sovra.stream", record.stream);
    s.setAttribute("sovra.fallbacks", record.fallbacks);
    s.setAttribute("sovra.cost_micro_eur", record.cost_micro_eur);
    s.setAttribute("sovra.estimated", record.estimated);
    if (record.status >= 400) {
      s.setAttribute("error.type", String(record.status));
      if (record.status >= 500) s.setStatus({ code: SpanStatusCode.ERROR });
    }
    s.end();
  }
}

export class AttemptSpan {
  constructor(readonly span: Span, readonly ctx: Context) {}

  within<T>(fn: () => Promise<T>): Promise<T> {
    return context.with(this.ctx, fn);
  }

  end(failure: unknown): void {
    if (failure !== undefined) {
      this.span.setAttribute("error.type", failureKind(failure));
      const status = failureStatus(failure);
      if (status !== undefined) this.span.setAttribute("http.response.status_code", status);
      this.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    this.span.end();
  }
}

export class Tracing {
  readonly #tracer: Tracer = trace.getTracer("sovra");

  startRequest(endpoint: string): RequestSpan {
    const parent = context.active();
    const span = this.#tracer.startSpan(`sovra ${endpoint}`, {
      kind: SpanKind.SERVER,
      attributes: { "sovra.endpoint": endpoint },
    }, parent);
    return new RequestSpan(span, trace.setSpan(parent, span));
  }

  startAttempt(
    parent: RequestSpan | undefined,
    route: AttemptRoute,
    index: number,
  ): AttemptSpan {
    const ctx = parent?.ctx ?? context.active();
    const span = this.#tracer.startSpan(`upstream ${route.route.upstream_model}`, {
      kind: SpanKind.CLIENT,
      attributes: {
        "gen_ai.provider.name": route.providerId,
        "gen_ai.request.model": route.route.upstream_model,
        "sovra.dialect": route.dialect,
        "sovra.fallback_index": index,
      },
    }, ctx);
    return new AttemptSpan(span, trace.setSpan(ctx, span));
  }

  async settle<T>(parent: RequestSpan, write: () => Promise<T>): Promise<T> {
    const span = this.#tracer.startSpan("sovra settle", { kind: SpanKind.INTERNAL }, parent.ctx);
    try {
      return await write();
    } catch (error) {
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw error;
    } finally {
      span.end();
    }
  }
}
