/** The Responses stream events the gateway sends (a subset of the OpenAI event union). */
import type { OutputItem, ResponseObject } from "./response_object.ts";

interface Sequenced {
  sequence_number: number;
}

interface ContentRef {
  item_id: string;
  output_index: number;
  content_index: number;
}

type OutputTextPart = { type: "output_text"; text: string; annotations: never[] };
type ReasoningTextPart = { type: "reasoning_text"; text: string };

export type ResponsesStreamEvent =
  | Sequenced & { type: "response.created"; response: ResponseObject }
  | Sequenced & { type: "response.in_progress"; response: ResponseObject }
  | Sequenced & { type: "response.completed"; response: ResponseObject }
  | Sequenced & { type: "response.failed"; response: ResponseObject }
  | Sequenced & { type: "response.output_item.added"; output_index: number; item: OutputItem }
  | Sequenced & { type: "response.output_item.done"; output_index: number; item: OutputItem }
  | Sequenced & ContentRef & {
    type: "response.content_part.added";
    part: OutputTextPart | ReasoningTextPart;
  }
  | Sequenced & ContentRef & {
    type: "response.content_part.done";
    part: OutputTextPart | ReasoningTextPart;
  }
  | Sequenced & ContentRef & { type: "response.output_text.delta"; delta: string; logprobs: [] }
  | Sequenced & ContentRef & { type: "response.output_text.done"; text: string; logprobs: [] }
  | Sequenced & ContentRef & { type: "response.reasoning_text.delta"; delta: string }
  | Sequenced & ContentRef & { type: "response.reasoning_text.done"; text: string }
  | Sequenced & {
    type: "response.function_call_arguments.delta";
    item_id: string;
    output_index: number;
    delta: string;
  }
  | Sequenced & {
    type: "response.function_call_arguments.done";
    item_id: string;
    output_index: number;
    arguments: string;
    name: string;
  };
