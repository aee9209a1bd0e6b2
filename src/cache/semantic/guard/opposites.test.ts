import { describe } from 'vitest';
import { oppositeWords } from './opposites.ts';
import { itFollowsTable } from './rule-table.ts';

describe('oppositeWords', () => {
  itFollowsTable(oppositeWords, [
    [
      'Which is more fuel-efficient, a hybrid or a diesel car?',
      'Between hybrid and diesel automobiles, which uses less fuel?',
      'ok',
    ],
    ['How do I turn on dark mode?', 'How do I turn off dark mode?', 'opposite'],
    // A verb and its antonym once a particle after it is set aside, after an object pronoun too,
    // on either side (RULE90); the same verb with the particle or without it stays.
    [
      "What's the fastest way to thin out my gravy?",
      "What's the fastest way to thicken my gravy?",
      'opposite',
    ],
    [
      'My pastry cream is too runny; how do I thin it out?',
      'My pastry cream is too runny; how do I thicken it up?',
      'opposite',
    ],
    ['How do I fold up a stair lift seat?', 'How do I unfold a stair lift seat?', 'opposite'],
    ['How do I thin my gravy?', 'How do I thin out my gravy?', 'ok'],
    // An opposite beside one other change (RULE114); two alternatives exchanged are not.
    [
      'My first batch of plum jam turned out too runny; how do I thicken it?',
      'My first batch of plum jam turned out too stiff; how do I thin it?',
      'opposite',
    ],
    [
      'How do I bind the receiver to my transmitter?',
      'How do I unbind the receiver from my transmitter?',
      'opposite',
    ],
    [
      'Should I add the pesto before baking or after?',
      'Should I add the pesto after baking or before?',
      'ok',
    ],
    // A word and its opposite at the first word the two differ at, whatever follows (RULE122), the
    // other's word later too (RULE127); not where an "or" or a "but" joins the two, as a reorder does.
    ['How do I thicken a runny caramel?', "How do I thin out a caramel that's too thick?", 'opposite'],
    ['How do I tie a furoshiki knot?', 'How do I untie a tight furoshiki knot?', 'opposite'],
    ['Divide 400 by 100.', 'Multiply 400 by a hundred.', 'opposite'],
    [
      'My gravy came out too thick for the biscuits; how do I thin it out?',
      'My gravy came out too thin for the biscuits; how do I thicken it up?',
      'opposite',
    ],
    ['How do I make a new brass lamp look old?', 'How do I make an old brass lamp look new?', 'opposite'],
    ['What are the cons of heat pumps?', 'What are the pros and cons of heat pumps?', 'opposite'],
    [
      'My upper molars are sore but the lower ones feel fine; should I see a dentist?',
      'My lower molars feel fine but the upper ones are sore; should I see a dentist?',
      'ok',
    ],
    [
      "Is bleeding the radiators the tenant's job or the landlord's?",
      "Is bleeding the radiators the landlord's job or the tenant's?",
      'ok',
    ],
    [
      'Our floors feel cold near the walls but warm in the middle; why?',
      'Our floors feel warm in the middle but cold near the walls; why?',
      'ok',
    ],
    // A WordNet antonym as the only word changed (RULE60), in the same inflection.
    ['Was Napoleon actually tall?', 'Was Napoleon actually short?', 'opposite'],
    [
      'Which pumpkin variety has the thickest walls?',
      'Which pumpkin variety has the thinnest walls?',
      'opposite',
    ],
    [
      'At what age do children in Finland start formal school?',
      'At what age do children in Finland finish formal school?',
      'opposite',
    ],
    // Elsewhere in a rebuilt question, an antonym is no opposite.
    ['Is it bad to run every day?', 'Does running daily do more harm than good?', 'ok'],
    // Pairs a helper wrote blind (hit-guard-words.ts, "More opposites").
    ['How do I see which invoices are paid?', 'How do I see which invoices are unpaid?', 'opposite'],
    [
      "What's the safest way to park on a hill in a manual car?",
      "What's the safest way to park on a hill in an automatic car?",
      'opposite',
    ],
    [
      'Why does my printer make a quiet grinding noise?',
      'Why does my printer make a loud grinding noise?',
      'opposite',
    ],
    [
      "What's the best time of year to visit Norway?",
      "What's the worst time of year to visit Norway?",
      'opposite',
    ],
    ['How do I paint kitchen cabinets?', 'How do I strip paint from kitchen cabinets?', 'opposite'],
    // An undoing verb against a negation undoes the same thing (RULE73); against none, or with a
    // negation on its own side too, it is the other question still.
    [
      'How do I stop swallowing water while swimming?',
      "What can I do so I don't swallow water when I swim?",
      'ok',
    ],
    [
      'How do I stop my kid from wasting allowance?',
      "What can I do so my kid doesn't waste allowance?",
      'ok',
    ],
    ['How do I stop my dog barking at night?', 'Why does my dog bark at night?', 'opposite'],
    ["Why can't I stop my dog barking at night?", "Why doesn't my dog bark at night?", 'opposite'],
    ['How is a short-term capital gain taxed?', 'How is a long-term capital gain taxed?', 'opposite'],
    ['How do I make a Facebook event private?', 'How do I make a Facebook event public?', 'opposite'],
    // The only word changed, beside the same word used otherwise ("on my phone").
    [
      'I set up the Arlo app on my phone; how do I turn on motion alerts?',
      'I set up the Arlo app on my phone; how do I turn off motion alerts?',
      'opposite',
    ],
    // Counterpart roles.
    [
      'Security deposit advice for a first-time renter?',
      'Security deposit advice for a first-time landlord?',
      'opposite',
    ],
    [
      'Can the buyer cancel a house sale after the inspection?',
      'Can the seller cancel a house sale after the inspection?',
      'opposite',
    ],
    ['What are good thank-you gifts for a host?', 'What are good thank-you gifts for a guest?', 'opposite'],
    [
      'Why is my room colder than the rest of the house?',
      'Why is my room warmer than the rest of the house?',
      'opposite',
    ],
    // Opposites among short words.
    [
      'What are the arguments for nuclear power?',
      'What are the arguments against nuclear power?',
      'opposite',
    ],
    ['Should I stretch before running?', 'Should I stretch after running?', 'opposite'],
    // A party for its counterpart in the same act, as the only word changed (RULE71).
    [
      'Does the grantor need to sign the deed in front of a notary?',
      'Does the grantee need to sign the deed in front of a notary?',
      'opposite',
    ],
    ['What does a mortgagee do at closing?', 'What does a mortgagor do at closing?', 'opposite'],
    ['Can employers see my 401k balance?', 'Can employees see my 401k balance?', 'opposite'],
    // Another word changed too, or the question rebuilt round the other party.
    ['How do I pay employees in Kenya?', 'Can a Kenyan employer pay its staff monthly?', 'ok'],
    ['Can my trainer watch the session?', 'Can my trainee join the session?', 'ok'],
    // Opposites found only in near misses (RULE102, hit-guard-words.ts): the only word changed, or
    // one on each side in the same frame.
    ['Why do my knees hurt when I cycle uphill?', 'Why do my knees hurt when I cycle downhill?', 'opposite'],
    ['Can I take ibuprofen during a migraine?', 'Can I take ibuprofen after a migraine?', 'opposite'],
    [
      "I'm 45 and out of shape; what's a good beginner rowing plan for three days a week?",
      "I'm 45 and out of shape; what's a good advanced rowing plan for three days a week?",
      'opposite',
    ],
    ['How much protein do I need to gain weight?', 'How much protein do I need to lose weight?', 'opposite'],
    ['Is it better to plant garlic in spring?', 'Is it better to plant garlic in fall?', 'opposite'],
    [
      'Are museum tickets in Paris cheaper on weekdays?',
      'Are museum tickets in Paris cheaper on weekends?',
      'opposite',
    ],
    // Both words on each side: no opposite.
    [
      'Should I stretch before or during a long run?',
      'Is it better to stretch during a long run or before it?',
      'ok',
    ],
    // "keep it from" and "quit" say "stop" (RULE103): no undoing verb added.
    ['How do I keep my glasses from fogging up?', 'My glasses keep fogging up; how do I stop that?', 'ok'],
    [
      'How do I get my cat to quit scratching the sofa?',
      'How do I stop my cat from scratching the sofa?',
      'ok',
    ],
    // "quite" is not "quit".
    ['Is it quite safe to stop taking vitamin D?', 'Is it safe to start taking vitamin D?', 'opposite'],
    // An irregular past is its verb (RULE104): against its opposite on the other side, in the same
    // frame or as the only change, on either side.
    [
      'I sold a used lawnmower to my neighbor last spring; do I owe any tax on it?',
      'I bought a used lawnmower from my neighbor last spring; do I owe any tax on it?',
      'opposite',
    ],
    [
      'I lent my cousin my camera and she dropped it; who should pay for the repair?',
      "I borrowed my cousin's camera and dropped it; who should pay for the repair?",
      'opposite',
    ],
    ['Oat prices rose in March; why?', 'Oat prices fell in March; why?', 'opposite'],
    ['Oat prices fell in March; why?', 'Why do oat prices rise in March?', 'opposite'],
    [
      'The lake froze early this year; is it safe to skate?',
      'The lake will thaw early this year; is it safe to skate?',
      'opposite',
    ],
    [
      'My team lost the final; can we appeal the result?',
      'My team won the final; can we appeal the result?',
      'opposite',
    ],
    // Both verbs on each side, past or not: no opposite; a participle before a noun stays an
    // adjective ("frozen" is not "freeze"), so "thaw" is the opposite still.
    [
      'My dad sold his house and bought a smaller one; can he defer the gain?',
      'My dad bought a smaller house after he sold his old one; can he defer the gain?',
      'ok',
    ],
    ['How do I freeze cookie dough?', 'How do I thaw frozen cookie dough?', 'opposite'],
    // A word of the list a synonym folds ("receive" is read as "get") by its stem too (RULE105).
    ['When was the first email sent?', 'When was the first email received?', 'opposite'],
    [
      'Why does my phone keep receiving spam texts?',
      'Why does my phone keep sending spam texts?',
      'opposite',
    ],
    // A word against itself with a negating prefix (RULE156), whatever follows the first change;
    // not where the prefix negates nothing.
    [
      'Which kinds of ribbon are suitable for outdoor use?',
      'Which kinds of ribbon are unsuitable for outdoor use?',
      'opposite',
    ],
    ['Is this brie pasteurized?', 'Is this brie unpasteurized?', 'opposite'],
    [
      'In Xero, how do I reconcile a bank transaction that is still unmatched?',
      'In Xero, how do I unreconcile a bank transaction that was matched to the wrong bill?',
      'opposite',
    ],
    ['Is petrol flammable?', 'Is petrol inflammable?', 'ok'],
  ]);
});
