import { describe, expect, it } from 'vitest';
import { GuardPair } from './guard-rule.ts';
import { plantPart } from './plant-part.ts';
import { itFollowsTable } from './rule-table.ts';

describe('plantPart', () => {
  itFollowsTable(plantPart, [
    // A plant against one of its parts, after the plant's own name (RULE167).
    ['How long does a peony flower last?', 'How long does a peony plant last?', 'narrower'],
    ['Is the whole frangipani plant toxic?', 'Is the frangipani flower toxic?', 'narrower'],
    ['Is the jicama plant poisonous?', 'Is the jicama root poisonous?', 'narrower'],
    ['Can you eat zucchini leaves?', 'Can you eat the whole zucchini plant?', 'narrower'],
    // Two parts, two words for the whole plant, or a verb changed.
    ['Are ginkgo seeds safe to eat?', 'Are ginkgo nuts safe to eat?', 'ok'],
    ['How tall does a banana plant grow?', 'How tall does a banana tree grow?', 'ok'],
    ['When do cherry trees blossom?', 'When do cherry trees bloom?', 'ok'],
  ]);

  it('reads the plant after a content word only: "I plant" is a verb', () => {
    const refused = (question: string, candidate: string) =>
      plantPart.refuses(new GuardPair(question, candidate));
    expect(refused('When should I plant lettuce?', 'When should I water lettuce?')).toBe(false);
    expect(refused('What does a breadfruit tree look like?', 'What does a breadfruit leaf look like?')).toBe(
      true,
    );
    expect(
      refused(
        'My basil is in the ground; can I freeze the whole plant?',
        'My basil is in the ground; can I freeze just the leaves?',
      ),
    ).toBe(true);
  });
});
