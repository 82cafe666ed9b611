// Sovra with the official OpenAI Node SDK (npm install openai). Base URL ends in /v1.
import OpenAI from "openai";

const client = new OpenAI({
  baseURL: process.env.SOVRA_BASE_URL ?? "http://127.0.0.1:8080/v1",
  apiKey: process.env.SOVRA_API_KEY, // sk-ex-… from `deno task admin key create`
});
const model = process.env.SOVRA_MODEL ?? "mistral/mistral-small-2506"; // '<provider>/<model>'

// One chat.
const chat = await client.chat.completions.create({
  model,
  messages: [{ role: "user", content: "Hello from the EU" }],
});
console.log("chat:", chat.choices[0].message.content);

// One stream.
const stream = await client.chat.completions.create({
  model,
  messages: [{ role: "user", content: "Count to three" }],
  stream: true,
});
let streamed = "";
for await (const chunk of stream) streamed += chunk.choices[0]?.delta?.content ?? "";
console.log("stream:", streamed);

// One tool call.
const tools = [{
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
}];
const asked = await client.chat.completions.create({
  model,
  messages: [{ role: "user", content: "Weather in Lyon?" }],
  tools,
});
const call = asked.choices[0].message.tool_calls[0];
console.log("tool:", call.function.name, call.function.arguments);
