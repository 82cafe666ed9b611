// Sovra with the Vercel AI SDK (npm install ai @ai-sdk/openai zod). Its default OpenAI model is
// the Responses API: Sovra stores nothing, so set store: false.
import { generateText, stepCountIs, streamText, tool } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { z } from "zod";

const sovra = createOpenAI({
  baseURL: process.env.SOVRA_BASE_URL ?? "http://127.0.0.1:8080/v1",
  apiKey: process.env.SOVRA_API_KEY,
});
const model = sovra(process.env.SOVRA_MODEL ?? "mistral/mistral-small-2506");
const providerOptions = { openai: { store: false } };

// One chat.
const chat = await generateText({ model, prompt: "Hello from the EU", providerOptions });
console.log("chat:", chat.text);

// One stream.
const stream = streamText({ model, prompt: "Count to three", providerOptions });
let streamed = "";
for await (const delta of stream.textStream) streamed += delta;
console.log("stream:", streamed);

// One tool call, run to the answer (a tool loop of at most three steps).
const weather = await generateText({
  model,
  prompt: "Weather in Lyon?",
  tools: {
    get_weather: tool({
      description: "Current weather for a city",
      inputSchema: z.object({ city: z.string() }),
      execute: ({ city }) => ({ city, celsius: 21 }),
    }),
  },
  stopWhen: stepCountIs(3),
  providerOptions,
});
const call = weather.steps[0].toolCalls[0];
console.log("tool:", call.toolName, JSON.stringify(call.input));
console.log("answer:", weather.text);
