/**
 * The chat message list -> the alternating user/assistant turns of the upstreams that have no
 * system or tool roles: Anthropic Messages (reference/providers.md section 2, "Rules" and the
 * table "OpenAI request → Anthropic request") and Bedrock Converse (section 4, "Roles strictly
 * alternate"). Both take the same rules; how a message becomes blocks is each upstream's own
 * (a TurnBlockWriter), and so is which text is too empty to send.
 *
 * The rules: system and developer messages are hoisted, in order, into the system blocks; tool
 * messages become tool-result blocks of a user turn; adjacent turns of one role are merged; in a
 * user turn the tool results come first (they answer the previous assistant turn); a conversation
 * opening with the assistant gets a stand-in user turn; a trailing assistant turn (a prefill)
 * loses its trailing whitespace.
 */
import { InvalidRequestError } from '../../errors/gateway-error.ts';
import type {
  ChatAssistantMessage,
  ChatMessage,
  ChatRefusalPart,
  ChatTextPart,
  ChatToolMessage,
  ChatUserContentPart,
} from '../../shapes/openai.ts';
import { parseToolArguments } from './tool-calls.ts';

/** A turn of the upstream's conversation, in its own block shape. */
export interface ChatTurn<Block> {
  role: 'user' | 'assistant';
  content: Block[];
}

/** How one upstream writes messages as blocks. `TextBlock` serves as a system block too. */
export interface TurnBlockWriter<Block, TextBlock extends Block & { text: string }> {
  /** Whether a text is worth a block (the upstream refuses empty ones, or blank ones too). */
  keepsText(text: string): boolean;
  text(text: string): TextBlock;
  isText(block: Block): block is TextBlock;
  /** One part of a user message's content array; none for a part with nothing to send. */
  userPart(part: ChatUserContentPart): Block[];
  /** One assistant tool call; the id is the client's (the writer sanitizes it). */
  toolUse(id: string, name: string, input: Record<string, unknown>): Block;
  /** A tool message, its `tool_call_id` checked to be a string. */
  toolResult(message: ChatToolMessage): Block;
  isToolResult(block: Block): boolean;
}

/** Stands in for a missing first user turn (both upstreams want the conversation to open with the user). */
const OPENING_USER_TEXT = '.';

/** The texts of string or text-part content; refusal parts (in assistant history) were text the model wrote. */
export function chatTextPieces(
  content: string | Array<ChatTextPart | ChatRefusalPart> | null | undefined,
): string[] {
  if (typeof content === 'string') return [content];
  if (!Array.isArray(content)) return [];
  const pieces: string[] = [];
  for (const part of content) {
    const text = part.type === 'text' ? part.text : (part as { refusal?: string }).refusal;
    if (typeof text === 'string') pieces.push(text);
  }
  return pieces;
}

/** Appends blocks as a turn, merging into the previous turn of the same role. */
function appendTurn<Block>(turns: ChatTurn<Block>[], role: ChatTurn<Block>['role'], blocks: Block[]): void {
  if (blocks.length === 0) return;
  const last = turns.at(-1);
  if (last?.role === role) last.content.push(...blocks);
  else turns.push({ role, content: blocks });
}

/** A trailing assistant turn is a prefill, which must not end in whitespace. */
function trimPrefill<Block, TextBlock extends Block & { text: string }>(
  turns: ChatTurn<Block>[],
  writer: TurnBlockWriter<Block, TextBlock>,
): void {
  const last = turns.at(-1);
  const block = last?.content.at(-1);
  if (last?.role !== 'assistant' || block === undefined || !writer.isText(block)) return;
  block.text = block.text.trimEnd();
  if (block.text !== '') return;
  last.content.pop();
  if (last.content.length === 0) turns.pop();
}

/** Throws InvalidRequestError for messages the upstream cannot take. */
export function convertChatMessagesToTurns<Block, TextBlock extends Block & { text: string }>(
  messages: unknown,
  writer: TurnBlockWriter<Block, TextBlock>,
): { system: TextBlock[]; turns: ChatTurn<Block>[] } {
  if (!Array.isArray(messages)) throw new InvalidRequestError('messages must be an array');
  const textBlocks = (content: Parameters<typeof chatTextPieces>[0]): TextBlock[] =>
    chatTextPieces(content)
      .filter((text) => writer.keepsText(text))
      .map((text) => writer.text(text));

  const assistantBlocks = (message: ChatAssistantMessage): Block[] => {
    const blocks: Block[] = textBlocks(message.content);
    if (blocks.length === 0 && typeof message.refusal === 'string' && writer.keepsText(message.refusal))
      blocks.push(writer.text(message.refusal));
    for (const call of message.tool_calls ?? []) {
      if (call.type !== 'function' || call.function === undefined)
        throw new InvalidRequestError(`unsupported tool call type '${call.type}'`);
      blocks.push(writer.toolUse(call.id, call.function.name, parseToolArguments(call.function.arguments)));
    }
    return blocks;
  };

  const system: TextBlock[] = [];
  const turns: ChatTurn<Block>[] = [];
  for (const message of messages as ChatMessage[]) {
    switch (message.role) {
      case 'system':
      case 'developer':
        // Neither upstream has a mid-conversation system turn: every system message is hoisted.
        system.push(...textBlocks(message.content));
        break;
      case 'user': {
        const content: unknown = message.content;
        if (typeof content === 'string') appendTurn(turns, 'user', textBlocks(content));
        else if (Array.isArray(content))
          appendTurn(
            turns,
            'user',
            (content as ChatUserContentPart[]).flatMap((part) => writer.userPart(part)),
          );
        else throw new InvalidRequestError('user message content must be a string or an array of parts');
        break;
      }
      case 'assistant':
        appendTurn(turns, 'assistant', assistantBlocks(message));
        break;
      case 'tool':
        if (typeof message.tool_call_id !== 'string')
          throw new InvalidRequestError('tool messages need a tool_call_id');
        appendTurn(turns, 'user', [writer.toolResult(message)]);
        break;
      default:
        throw new InvalidRequestError(`unsupported message role '${(message as { role?: unknown }).role}'`);
    }
  }
  if (turns.length === 0) throw new InvalidRequestError('messages must contain a user or assistant message');
  for (const turn of turns) {
    // Tool results answer the previous assistant turn and must come first in the user turn.
    if (turn.role === 'user')
      turn.content = [
        ...turn.content.filter((block) => writer.isToolResult(block)),
        ...turn.content.filter((block) => !writer.isToolResult(block)),
      ];
  }
  if (turns[0]?.role === 'assistant')
    turns.unshift({ role: 'user', content: [writer.text(OPENING_USER_TEXT)] });
  trimPrefill(turns, writer);
  return { system, turns };
}
