import{c as r,s as e}from"./flowDiagram-HODETNUW-CvVEs8B3.js";import{_ as a}from"./diagram-BMNIyQ36.js";import"./chunk-5VM5RSS4-dDgMNkZi.js";import"./chunk-XXDRQBXY-1_qpp7k2.js";import"./chunk-POPQ4Y6H-C-Zi677l.js";import"./chunk-F27PBJKO-pbUkCk42.js";import"./channel-CPALIAii.js";import"./index-CIphFxoB.js";import"./_commonjsHelpers-CqkleIqs.js";var o=a(t=>`${e(t)}
  .swimlane.cluster rect {
    stroke: ${t.clusterBorder} !important;
  }
  [data-look="neo"].cluster rect {
    filter: none;
  }
`,"getStyles"),m=o,y=r({defaultLayout:"swimlane",styles:m});export{y as diagram};
