import { describe, expect, it } from 'vitest';
import { VERIFIER_GUARD } from '../pair-verifier.ts';
import { GuardPair } from './guard-rule.ts';
import { checkHitGuard } from './hit-guard.ts';
import { itFollowsTable } from './rule-table.ts';
import { swappedRoles } from './swapped-roles.ts';

describe('swappedRoles', () => {
  itFollowsTable(swappedRoles, [
    // Runs that trade places around stop words only, or a clause moved with its words changed.
    [
      'What is the difference between tea and coffee?',
      'What is the difference between coffee and tea?',
      'ok',
    ],
    ['How often should I water my tomato plants?', 'How often do my tomato plants need watering?', 'ok'],
    ['Can cats get fleas from rabbits?', 'Can rabbits get fleas from cats?', 'swapped'],
    [
      'Should I use vinegar instead of lemon juice?',
      'Should I use lemon juice instead of vinegar?',
      'swapped',
    ],
    // Around a verb the guard counts as a stop word ("give"); "but" and "is" take no sides.
    ['How much notice must I give my landlord?', 'How much notice must my landlord give me?', 'swapped'],
    ['What gift should the groom give the bride?', 'What gift should the bride give the groom?', 'swapped'],
    [
      'Why is my banana bread raw in the middle but burnt on top?',
      'Why is my banana bread burnt on top but raw in the middle?',
      'ok',
    ],
    ['How long is the Great Wall of China?', 'The Great Wall of China is how long?', 'ok'],
    // Alternatives offered in another order, whatever stands between them.
    [
      'Should I bake with almond flour or regular for this cake?',
      'Should I bake with regular flour or almond for this cake?',
      'ok',
    ],
    [
      'Is a gas grill vs a charcoal grill better for beginners?',
      'Is a charcoal grill vs a gas grill better for beginners?',
      'ok',
    ],
    // Two parts exchanged around an "and" that joins two clauses: after a subject and its verb of
    // being, a word after them (RULE87); around "or", or ending at a stop, alternatives reordered.
    [
      'Is the tenant or the landlord responsible for repairs?',
      'Is the landlord or the tenant responsible for repairs?',
      'ok',
    ],
    [
      "I'm a mom and a nurse; how do I sleep after night shifts?",
      "I'm a nurse and a mom; how do I sleep after night shifts?",
      'ok',
    ],
    // "with" after "replace" or "substitute" takes sides; after "pair" or "swap" it does not (RULE89).
    ['Can I replace tofu with ricotta in lasagna?', 'Can I replace ricotta with tofu in lasagna?', 'swapped'],
    [
      'Is it OK to substitute oil with butter in brownies?',
      'Is it OK to substitute butter with oil in brownies?',
      'swapped',
    ],
    [
      'Can I replace a plain bathroom exhaust fan with a fan-light combo?',
      'Can I replace a fan-light combo with a plain bathroom exhaust fan?',
      'swapped',
    ],
    ['Can I pair pinot noir with salmon?', 'Can I pair salmon with pinot noir?', 'ok'],
    ['Can I swap oil with butter in brownies?', 'Can I swap butter with oil in brownies?', 'ok'],
    // ... and after any verb that does something with one thing to another (RULE92); a verb that
    // pairs, uses, eats or wears two things alike leaves it symmetric.
    ['Can I tow a snowmobile with an ATV?', 'Can I tow an ATV with a snowmobile?', 'swapped'],
    [
      'Can I charge an iPhone with a MacBook charger?',
      'Can I charge a MacBook with an iPhone charger?',
      'swapped',
    ],
    ['Can I mix bleach with vinegar?', 'Can I mix vinegar with bleach?', 'ok'],
    ['Can I use AirPods with an Android phone?', 'Can I use an Android phone with AirPods?', 'ok'],
    ['Is it OK to eat rice with beans every day?', 'Is it OK to eat beans with rice every day?', 'ok'],
    // Two things exchanged around a relation that holds both ways (RULE93).
    ['Is focaccia dough the same as pizza dough?', 'Is pizza dough the same as focaccia dough?', 'ok'],
    // ... and sharing their first words (RULE147).
    ['How do baby slings differ from baby carriers?', 'How do baby carriers differ from baby slings?', 'ok'],
    ['Is a baby sling the same as a baby carrier?', 'Is a baby carrier the same as a baby sling?', 'ok'],
    ['Is a baby sling safer than a baby carrier?', 'Is a baby carrier safer than a baby sling?', 'swapped'],
    // Not a member and its kind (RULE148): two things the same, or offered as alternatives.
    ['Is a tankard the same as a stein?', 'Is a stein the same as a tankard?', 'ok'],
    ['Is a stein or a tankard better for lager?', 'Is a tankard or a stein better for lager?', 'ok'],
    [
      "Are chanterelles easy to confuse with jack-o'-lantern mushrooms?",
      "Are jack-o'-lantern mushrooms easy to confuse with chanterelles?",
      'ok',
    ],
    ['How do I tell a crow from a raven?', 'How do I tell a raven from a crow?', 'ok'],
    [
      'Which mountain range separates Asia from Europe?',
      'Which mountain range separates Europe from Asia?',
      'ok',
    ],
    // A person and a verb trading places.
    ['What happens when I mute someone on Slack?', 'What happens when someone mutes me on Slack?', 'swapped'],
    ['How do I see who I have muted on Twitter?', 'How do I see who has muted me on Twitter?', 'swapped'],
    // Whole clauses moved, each keeping its own roles: a reorder.
    [
      "We're planning an outdoor wedding in July, and we're worried about the heat; how can we keep guests cool?",
      "We're worried about the heat, and we're planning an outdoor wedding in July; how can we keep guests cool?",
      'ok',
    ],
    [
      'My car was stolen from my driveway last night; does my insurance pay for a rental while they investigate?',
      'While they investigate, does my insurance pay for a rental? My car was stolen from my driveway last night.',
      'ok',
    ],
    // A subordinate clause put at the other end, its opening word with it (RULE54).
    [
      'Before painting a vintage dresser, do I need to sand it?',
      'Do I need to sand a vintage dresser before painting it?',
      'ok',
    ],
    [
      'When my opponent hits deep moonballs to my backhand, how should I respond as a 3.5 player?',
      'As a 3.5 player, how should I respond when my opponent hits deep moonballs to my backhand?',
      'ok',
    ],
    [
      'Even though I water them, my hydrangeas wilt in the afternoon sun every summer; what can I do?',
      'Every summer my hydrangeas wilt in the afternoon sun even though I water them; what can I do?',
      'ok',
    ],
    // A phrase of place, time or purpose put first, from the first word (RULE116).
    [
      'I twisted my ankle on a hike in Utah last weekend; how long should I rest it?',
      'Last weekend on a hike in Utah I twisted my ankle; how long should I rest it?',
      'ok',
    ],
    ['Is street parking free in Boston on Sundays?', 'On Sundays in Boston, is street parking free?', 'ok'],
    [
      'What blade should I use on my jigsaw to cut curves in plywood?',
      'To cut curves in plywood on my jigsaw, what blade should I use?',
      'ok',
    ],
    // From the first word, runs that open with no such phrase are persons or things that swapped.
    [
      'I rear-ended another car in the rain; am I at fault?',
      'Another car rear-ended me in the rain; am I at fault?',
      'swapped',
    ],
    // Further in, a month or a preposition opening a run is no phrase put first.
    [
      'Can I use baby formula with a use-by date of June if it is August?',
      'Can I use baby formula with a use-by date of August if it is June?',
      'swapped',
    ],
    // A run is the same run with another article in it (RULE123); the words between the runs
    // match as written, so clauses put in the other order past "a fence" / "the fence" are no swap;
    // and an article against a possessive still trades a run whose own words match.
    [
      "Can a conservator sue the conservatee's family?",
      "Can the conservatee's family sue the conservator?",
      'swapped',
    ],
    [
      'How do I estimate the cash value from an advertised lottery jackpot?',
      'How do I estimate the advertised lottery jackpot from the cash value?',
      'swapped',
    ],
    ['Can a city condemn land owned by the state?', 'Can a state condemn land owned by a city?', 'swapped'],
    [
      'Our trampoline is right next to a fence, and the kids keep bouncing toward it; how much clearance do we need?',
      'The kids keep bouncing toward the fence, and our trampoline is right next to it; how much clearance do we need?',
      'ok',
    ],
    ['Can a landlord sue my tenant?', 'Can my tenant sue the landlord?', 'swapped'],
    // The speaker's role exchanged with a party the question names (RULE124); not a role without
    // an article, nor the same words in another order ("a mom and a nurse", above).
    [
      "I'm an optometrist co-managing a LASIK patient; what records should I send to the surgeon?",
      "I'm a LASIK surgeon co-managing a patient with an optometrist; what records should I send to the optometrist?",
      'swapped',
    ],
    [
      "I'm a homeowner and I think my roofer caused ice dam damage; can I sue him?",
      "I'm a roofer and a homeowner blames me for ice dam damage; can he sue me?",
      'swapped',
    ],
    [
      "I'm a college athlete on a scholarship; am I allowed to earn money from my name?",
      "Could you tell me whether I'm permitted to earn money from my name? I'm a college athlete on a scholarship.",
      'ok',
    ],
    // Runs that open or end alike, past the shared start and end (RULE117).
    ['How do sloth moths help sloths?', 'How do sloths help sloth moths?', 'swapped'],
    [
      'Can I use a toaster in place of a toaster oven?',
      'Can I use a toaster oven in place of a toaster?',
      'swapped',
    ],
    ['Can a guide dog become a pet dog?', 'Can a pet dog become a guide dog?', 'swapped'],
    // Alternatives that end alike reordered are still one question.
    ['Should I buy a gas grill or a charcoal grill?', 'Should I buy a charcoal grill or a gas grill?', 'ok'],
    // The opening word between the runs, not at the head of one: roles swapped.
    ['Should I eat before I run?', 'Should I run before I eat?', 'swapped'],
    ['Should I apply primer before paint?', 'Should I apply paint before primer?', 'swapped'],
    // "to" opens no clause: a direction stays swapped.
    [
      'How can I transfer my contacts from my old iPhone to a new iPhone?',
      'How can I transfer my contacts to a new iPhone from my old iPhone?',
      'swapped',
    ],
    // Roles swapped inside a clause, the clauses where they were.
    [
      'My coworker keeps taking credit for my work; how do I bring it up with my manager?',
      'My manager keeps taking credit for my work; how do I bring it up with my coworker?',
      'swapped',
    ],
    // Persons trading places, nothing else changed but an auxiliary agreeing (RULE71).
    [
      "Why can I hear him on CB but he can't hear me?",
      "Why can he hear me on CB but I can't hear him?",
      'swapped',
    ],
    [
      'My son just got his first credit card; how do I add him as an authorized user on my card?',
      'My son just got his first credit card; how do I add myself as an authorized user on his card?',
      'swapped',
    ],
    [
      'How do I safely belay him on a steep pitch?',
      'How does he safely belay me on a steep pitch?',
      'swapped',
    ],
    [
      'Do I owe you gas money if you drove me home?',
      'Do you owe me gas money if I drove you home?',
      'swapped',
    ],
    // One person for another, none the other way, is no exchange; nor two joined by "and".
    ['Can I claim the credit on my taxes?', 'Can we claim the credit on our taxes?', 'ok'],
    ['Can she claim the credit on her taxes?', 'Can I claim the credit on my taxes?', 'ok'],
    ['Can you take a photo of him and me?', 'Can you take a photo of me and him?', 'ok'],
    // An "&" standing alone is "and": the same two in another order.
    [
      'My kids & I are visiting Oregon; which lighthouses are open?',
      'Me & my kids are visiting Oregon; which lighthouses are open?',
      'ok',
    ],
    [
      'Is it better to take the train up & the bus back?',
      'Is it better to take the bus up & the train back?',
      'swapped',
    ],
    // Around "or" the two are alternatives offered in another order.
    ['Should I call him or should he call me?', 'Should he call me or should I call him?', 'ok'],
    // Another word changed too: not this rule's to read.
    ['Can I give him my old phone?', 'Can he sell me his old phone?', 'ok'],
  ]);

  // A relation both ways only where nothing else stands between the two (RULE93).
  it.each([
    // Two parts exchanged around an "and" that joins two clauses (RULE87), where the parts are a
    // pair of opposites: this rule refuses them, and the opposites rule, asked first, does too
    // since RULE127 (the first differing words opposites, the other's word later with no "or"
    // between), so the guard's reason is `opposite`.
    [
      "I'm the seller and the buyer wants to back out after escrow opened; what are my options?",
      "I'm the buyer and the seller wants to back out after escrow opened; what are my options?",
    ],
    [
      'I am the tenant and the landlord wants me to pay for the repair; is that legal?',
      'I am the landlord and the tenant wants me to pay for the repair; is that legal?',
    ],
  ])('refuses %s / %s, as the opposites rule does first', (question, candidate) => {
    expect(swappedRoles.refuses(new GuardPair(question, candidate))).toBe(true);
    expect(checkHitGuard(question, candidate)).toEqual({ ok: false, reason: 'opposite' });
  });

  // A member and its kind exchanged after "every", "all" or "each" (RULE148): this rule refuses
  // them, the guard beside the verifier for it; with every rule, the numbers rule refuses them first
  // ("a" counts one of another thing: "one mortgage on two houses").
  it.each([
    ['Is every stein a tankard?', 'Is every tankard a stein?'],
    ['Is every tankard a stein?', 'Is every stein a tankard?'],
    ['Is each rhombus a square?', 'Is each square a rhombus?'],
    ['Is every stein also a tankard?', 'Is every tankard also a stein?'],
  ])('refuses a member and its kind exchanged: %s / %s', (question, candidate) => {
    expect(swappedRoles.refuses(new GuardPair(question, candidate))).toBe(true);
    expect(checkHitGuard(question, candidate, VERIFIER_GUARD)).toEqual({ ok: false, reason: 'swapped' });
    expect(checkHitGuard(question, candidate)).toEqual({ ok: false, reason: 'numbers' });
  });

  it.each([
    [
      'Is the Xbox controller compatible with the Switch?',
      'Is the Switch controller compatible with the Xbox?',
    ],
    ['Is a crow bigger than a raven?', 'Is a raven bigger than a crow?'],
    ['Can I move money from savings to checking?', 'Can I move money from checking to savings?'],
  ])('still refuses %s / %s', (question, candidate) => {
    expect(swappedRoles.refuses(new GuardPair(question, candidate))).toBe(true);
  });
});
