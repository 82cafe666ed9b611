# Sovra with the official OpenAI Python SDK (pip install openai). Base URL ends in /v1.
import json
import os

from openai import OpenAI

client = OpenAI(
    base_url=os.environ.get("SOVRA_BASE_URL", "http://127.0.0.1:8080/v1"),
    api_key=os.environ["SOVRA_API_KEY"],  # sk-ex-… from `deno task admin key create`
)
model = os.environ.get("SOVRA_MODEL", "mistral/mistral-small-2506")  # '<provider>/<model>'

# One chat.
chat = client.chat.completions.create(
    model=model, messages=[{"role": "user", "content": "Hello from the EU"}]
)
print("chat:", chat.choices[0].message.content)

# One stream.
stream = client.chat.completions.create(
    model=model, messages=[{"role": "user", "content": "Count to three"}], stream=True
)
streamed = "".join(
    chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices
)
print("stream:", streamed)

# One tool call.
tools = [{
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather for a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"],
        },
    },
}]
asked = client.chat.completions.create(
    model=model, messages=[{"role": "user", "content": "Weather in Lyon?"}], tools=tools
)
call = asked.choices[0].message.tool_calls[0]
print("tool:", call.function.name, json.dumps(json.loads(call.function.arguments)))
print("request id:", chat._request_id)
