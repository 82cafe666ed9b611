/**
 * The client's end-user id (`user`): kept in the request metadata, so bounded. Every endpoint
 * validates it with this schema; the record builder truncates as a second guard.
 */
import { z } from "zod";

export const END_USER_MAX = 256;

export const EndUserId = z.string().max(END_USER_MAX);
