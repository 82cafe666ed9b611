// Sovra with LangChain JS (npm install @langchain/openai @langchain/core).
import { ChatOpenAI } from "@langchain/openai";

const llm = new ChatOpenAI({
  model: process.env.SOVRA_MODEL ?? "mistral/mistral-small-2506",
  apiKey: process.env.SOVRA_API_KEY,
  configuration: { baseURL: process.env.SOVRA_BASE_URL ?? "http://127.0.0.1:8080/v1" },
});

// One chat.
const chat = await llm.invoke("Hello from the EU");
console.log("chat:", chat.content);

// One stream.
let streamed = "";
for await (const chunk of await llm.stream("Count to three")) streamed += chunk.content;
console.log("stream:", streamed);

// One tool call.
const withTools = llm.bindTools([{
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather for a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
}]);
const asked = await withTools.invoke("Weather in Lyon?");
const call = asked.tool_calls[0];
console.log("tool:", call.name, JSON.stringify(call.args));
