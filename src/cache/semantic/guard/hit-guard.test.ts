import { beforeAll, describe, expect, it, vi } from 'vitest';
import { loadEnglishWords } from './english-words.ts';
import { checkHitGuard } from './hit-guard.ts';

describe('isEnglishWord', () => {
  it('answers undefined until the list is loaded, then whether a word is in it', async () => {
    // A module of its own: unit files share a process, and another may have loaded the list.
    vi.resetModules();
    const { isEnglishWord, loadEnglishWords } = await import('./english-words.ts');
    expect(isEnglishWord('receive')).toBeUndefined();
    await loadEnglishWords();
    expect(isEnglishWord('receive')).toBe(true);
    expect(isEnglishWord('megabits')).toBe(true);
    expect(isEnglishWord('recieve')).toBe(false);
    expect(isEnglishWord('zzzz')).toBe(false);
    // Words the file has out of order are found too.
    expect(isEnglishWord('manlihood')).toBe(true);
  });
});

describe('checkHitGuard', () => {
  beforeAll(() => loadEnglishWords());

  it.each([
    ['What is the capital of France?', "what's the capital city of France?"],
    ['How do I reverse a list in Python?', 'Python: how can I reverse a list?'],
    ['Convert ten miles to kilometers', 'Convert 10 miles to kilometers please'],
    ['Where can I purchase a used automobile?', 'Where can I buy a used car?'],
    ['What does `Array.prototype.map` do?', 'Explain what `Array.prototype.map` does'],
    ["What does 'FOMO' mean?", 'What is the meaning of FOMO?'],
    ['Name three primary colours', 'name 3 primary colors'],
    ['How many seconds are in a day?', 'How many seconds does one day have?'],
    ['How do I renew my US passport by mail?', 'Renewing a U.S. passport by mail: how?'],
    ['What is a 401(k)?', 'Explain what a 401k is'],
    ['Is it safe to eat raw eggs?', "Can you safely eat eggs raw, or isn't it safe?"],
    ['Who wrote the novel Pride and Prejudice?', 'Pride and Prejudice - who was its author?'],
    ['How do I see the logs of a Kubernetes pod?', 'What command shows a k8s pod logs?'],
    ['What is the past tense of swim?', "What's the past tense of the verb 'to swim'?"],
    [
      'What is the difference between INNER JOIN and LEFT JOIN?',
      'How does a left join differ from an inner join in SQL?',
    ],
    [
      'Which is more fuel-efficient, a hybrid or a diesel car?',
      'Between hybrid and diesel automobiles, which uses less fuel?',
    ],
    // A word added after a shared one, or one that only weighs, is not a narrower subject.
    ['What is the capital of Peru?', 'What is the capital city of Peru?'],
    ['How do I make pancakes?', 'How do I make good pancakes?'],
    ['How do I fold a fitted sheet?', 'How do I quickly fold a fitted sheet?'],
    // Runs that trade places around stop words only, or a clause moved with its words changed.
    ['What is the difference between tea and coffee?', 'What is the difference between coffee and tea?'],
    ['How often should I water my tomato plants?', 'How often do my tomato plants need watering?'],
    // A typo of a word, or a British spelling, is the word.
    ['How do I seperate egg yolks?', 'How do I separate egg yolks?'],
    ['How do I renew my driving licence?', 'How do I renew my driving license?'],
    // The same roles in either voice; a verb that happens to its subject ("are formed" / "form").
    ['What is eaten by foxes?', 'What do foxes eat?'],
    ['How do glaciers form?', 'How are glaciers formed?'],
    ['Why was my payment declined?', 'my payment got declined, why?'],
    // "How many days" asks how long; an ordinal is its number ("July 4th" / "July 4").
    ['How long does sourdough bread stay fresh?', 'How many days will sourdough bread stay fresh?'],
    ['What happened on July 4th, 1776?', 'What happened on July 4, 1776?'],
    ['Explain the 2nd law of thermodynamics', 'Explain the second law of thermodynamics'],
    // "How frequently" is "how often", "how many times a week" too; a slot of prepositions is a rewording.
    ['How often should I water a cactus?', 'How frequently should a cactus be watered?'],
    ['How often should I descale my kettle?', 'how many times a year do I descale my kettle'],
    ['Who painted the fresco The Last Supper?', "Who's the painter of The Last Supper?"],
  ])('lets a rewording through: %s / %s', (question, candidate) => {
    expect(checkHitGuard(question, candidate)).toEqual({ ok: true });
  });

  it.each([
    ['Convert 10 miles to kilometers', 'Convert 20 miles to kilometers', 'numbers'],
    ['What was the population of Berlin in 1990?', 'What was the population of Berlin in 2000?', 'numbers'],
    ["Translate 'good morning' to French", "Translate 'good night' to French", 'quoted'],
    ['What does useEffect do in React?', 'What does useMemo do in React?', 'identifiers'],
    ['How do I call os.path.join?', 'How do I call os.path.split?', 'identifiers'],
    ['Write a haiku about autumn', 'Write a haiku about spring', 'content'],
    ['What is the capital of France?', 'What is the capital of Spain?', 'content'],
    ['How do I sort a list in Python?', 'How do I sort a list in Java?', 'content'],
    ['What is the chemical symbol for gold?', 'What is the chemical symbol for silver?', 'content'],
    ['How do I cook rice in a rice cooker?', 'How do I cook rice on the stove?', 'content'],
    [
      'Who was the first person to walk on the moon?',
      'Who was the second person to walk on the moon?',
      'numbers',
    ],
    ['When did World War I end?', 'When did World War II end?', 'numbers'],
    ['How do I convert a string to an integer?', 'How do I convert an integer to a string?', 'direction'],
    ['What is 72 degrees Fahrenheit in Celsius?', 'What is 72 degrees Celsius in Fahrenheit?', 'direction'],
    [
      'Which fruits should be kept in the fridge?',
      'Which fruits should not be kept in the fridge?',
      'negation',
    ],
    ['Why does `[] == false` evaluate to true?', 'Why does `[] == []` evaluate to true?', 'quoted'],
    ['What foods help lower LDL cholesterol?', 'What foods help lower HDL cholesterol?', 'identifiers'],
    ['How do I turn on dark mode?', 'How do I turn off dark mode?', 'opposite'],
    [
      "What's the best time of year to visit Norway?",
      "What's the worst time of year to visit Norway?",
      'opposite',
    ],
    ['How do I paint kitchen cabinets?', 'How do I strip paint from kitchen cabinets?', 'opposite'],
    [
      'Can I get a refund on a refundable booking?',
      'Can I get a refund on a non-refundable booking?',
      'negation',
    ],
    [
      'How do I convert a pandas DataFrame to a CSV file?',
      'How do I convert a CSV file to a pandas DataFrame?',
      'direction',
    ],
    ['How is a short-term capital gain taxed?', 'How is a long-term capital gain taxed?', 'opposite'],
    ['What are the rules of volleyball?', 'What are the rules of beach volleyball?', 'narrower'],
    ['How long does a laptop battery last?', 'How long does a gaming laptop battery last?', 'narrower'],
    ['What is the weight of the Galaxy S24?', 'What is the weight of the Galaxy S24 Ultra?', 'narrower'],
    ['Can cats get fleas from rabbits?', 'Can rabbits get fleas from cats?', 'swapped'],
    [
      'Should I use vinegar instead of lemon juice?',
      'Should I use lemon juice instead of vinegar?',
      'swapped',
    ],
    // Two English words a letter apart are two words; so are two words no list has.
    ['How many kilobytes are in a megabyte?', 'How many kilobits are in a megabyte?', 'content'],
    ['Is a metroidvania hard?', 'Is a metroidvanio hard?', 'content'],
    // Voice with the roles the other way round, and a subject question against an object question.
    ['Which fish are eaten by seals?', 'Which fish eat seals?', 'voice'],
    ['What are signs my dog is being attacked?', 'What are signs my dog is attacking others?', 'voice'],
    ['Who was Caesar betrayed by?', 'Who was betrayed by Caesar?', 'voice'],
    ['What eats a hawk?', 'What does a hawk eat?', 'swapped'],
    ['What happens when I mute someone on Slack?', 'What happens when someone mutes me on Slack?', 'swapped'],
    // The same words, the numbers swapped or counting other things.
    ['What is 3 to the power of 5?', 'What is 5 to the power of 3?', 'numbers'],
    ['Can I own three cars on one license?', 'Can I own one car on three licenses?', 'numbers'],
    // Another question word, another title, another subject in the same frame.
    ['Why was the Concorde retired?', 'When was the Concorde retired?', 'question'],
    ['How often should I descale a kettle?', 'How much should I descale a kettle?', 'question'],
    ['Who composed Requiem?', 'Who composed Requiems?', 'names'],
    [
      'Can I get a refund if I miss my train?',
      'Can I get a refund if the railway cancels my train?',
      'content',
    ],
    // A modifier the other lacks: "used", or a word joined by a hyphen.
    ['Are electric bikes worth buying?', 'Are used electric bikes worth buying?', 'narrower'],
    ['How many watts does a fridge use?', 'How many watt-hours does a fridge use?', 'narrower'],
    ['How do I grill salmon fillets?', 'How do I grill skin-on salmon fillets?', 'narrower'],
    // Every one of a thing against one of it; a person and a verb trading places; "how" against "how often".
    ['How do I archive one chat in WhatsApp?', 'How do I archive all chats in WhatsApp?', 'numbers'],
    ['How do I see who I have muted on Twitter?', 'How do I see who has muted me on Twitter?', 'swapped'],
    ['How often should I oil a cutting board?', 'How should I oil a cutting board?', 'question'],
    // Another thing in the same slot, an article aside.
    ['Is Venus hotter than Mercury?', 'Is Venus hotter than the Moon?', 'content'],
    // The country, not the pronoun; opposites among short words.
    ['How much is 200 US dollars in yen?', 'How much is 200 yen in US dollars?', 'direction'],
    [
      'What are the arguments for nuclear power?',
      'What are the arguments against nuclear power?',
      'opposite',
    ],
    ['Should I stretch before running?', 'Should I stretch after running?', 'opposite'],
  ])('refuses a near miss: %s / %s (%s)', (question, candidate, reason) => {
    expect(checkHitGuard(question, candidate)).toEqual({ ok: false, reason });
  });
});
