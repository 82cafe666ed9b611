/**
 * A fixed sample of typical requests (no customer data): what the dashboard's preview routes
 * to predict a policy's traffic split and cost before it is saved. Mixed on purpose: small
 * talk, writing, knowledge, extraction, translation, maths, code and multi-step reasoning,
 * in several EU languages, at several lengths.
 */
export const SAMPLE_PROMPTS: readonly string[] = [
  "hi there, how are you?",
  "Thanks, that was helpful!",
  "Bonjour ! Peux-tu m'aider ?",
  "Write a haiku about autumn leaves.",
  "Draft a short, friendly e-mail telling the team the office is closed on Friday.",
  "Schreibe einen kurzen Werbetext für ein Fahrradgeschäft in Freiburg.",
  "Pretend you are a pirate and greet the crew.",
  "What is the capital of Portugal?",
  "Tell me about the Treaty of Westphalia.",
  "Who wrote 'Il nome della rosa' and when was it published?",
  "Summarise the main causes of the 2008 financial crisis in five bullet points.",
  "Extract every date and amount from this invoice text as JSON: paid 120 EUR on 2026-03-01, 80 EUR due 2026-04-15.",
  "Classify these support tickets by urgency: 'site down', 'typo on pricing page', 'refund request'.",
  "Translate into Dutch: 'The meeting is moved to Thursday at ten.'",
  "Traduce al español: 'Please keep your receipt for returns.'",
  "Solve for x: 3x + 7 = 22, and show each step.",
  "A train leaves at 09:40 and travels 210 km at 84 km/h. When does it arrive?",
  "What is the probability of rolling two sixes with two fair dice?",
  "Write a Python function that merges two sorted linked lists and explain its complexity.",
  "Why does this SQL query return duplicates? SELECT o.id FROM orders o JOIN items i ON i.order_id = o.id;",
  "Implement a rate limiter in TypeScript with a sliding window, and write tests for it.",
  "Compare the trade-offs of optimistic and pessimistic locking in a write-heavy database, step by step.",
  "Analyse the implications of moving our monolith to microservices for a team of six engineers.",
  "Prove that the square root of 2 is irrational, then explain the idea to a 12-year-old.",
];
