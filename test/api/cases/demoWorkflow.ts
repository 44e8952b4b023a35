// The demo data's workflow (src/demo/demoData.ts), written out as the answers must show it. It is an
// independent expectation, not an import of the demo data, so that a change there is noticed here.

/** The demo data's workflow (src/demo/demoData.ts) in its canonical answer form. */
export function demoWorkflow(title: string) {
  return {
    title,
    description: `${title} for new and returning patients`,
    enabled: true,
    usageContext: 'Use when the caller asks to book, move or cancel a visit.',
    order: 1,
    steps: [
      {
        title: 'Identify the patient',
        description: 'Ask for name and date of birth.',
        instructions: 'Confirm the spelling of the last name.',
        order: 1,
        examples: ['May I have your full name?', 'What is your date of birth?'],
        action: 'COLLECT_INFO',
        actionMetadata: { templateName: 'identify', templateBody: 'Name: {{name}}, DOB: {{dob}}' },
        childSteps: [
          {
            title: 'New patient',
            description: 'Collect insurance details.',
            instructions: 'Ask for the insurance carrier and member id.',
            order: 1,
            examples: ['Which insurance do you have?'],
            action: 'COLLECT_INFO',
            actionMetadata: { templateName: 'insurance', templateBody: 'Carrier: {{carrier}}' },
          },
        ],
      },
      {
        title: 'Offer a time',
        description: 'Propose the next open slots.',
        instructions: 'Offer at most three slots.',
        order: 2,
        examples: ['I have Tuesday at 10 or Wednesday at 2.'],
        action: 'SEND_SMS',
        actionMetadata: { templateName: 'confirmation', templateBody: 'Your visit is booked for {{time}}.' },
        childSteps: [],
      },
    ],
  };
}

/** The same workflow in the bot export form (no template `order`), without its id. */
export function demoExport(title: string) {
  const { order: _order, ...rest } = demoWorkflow(title);
  return rest;
}
